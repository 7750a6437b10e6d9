// perfgate ANE eval host: times the private _ANEClient evaluate call on one compiled
// Core ML model and prints the per-evaluation microseconds on one line:
//
//   eval_host MODEL.mlmodelc WARM TIMED
//   DMA_JSON {"eval_us":[...],"route":"evaluateWithModel","ane_subtype":"h16","ane_cores":16}
//
// UNTESTED: this file has never been compiled or run. It was written on Linux, without
// macOS, Xcode or an Apple Neural Engine, as a reimplementation of the seed's
// kernel_dma_mib_host.m (whose source is not public). The private selectors below come
// from public reverse-engineering notes (maderix/ANE and others) and may differ between
// macOS releases; every call is checked with respondsToSelector: and every failure
// exits non-zero with a message on stderr, so the probe reports it as
// `ane.host_failed` instead of timing garbage.
//
// Built at run time by the probe (framework/src/ane/probe.cc), as the seed does:
//   clang -O2 -fobjc-arc eval_host.m -o eval_host -framework Foundation
//         -framework CoreVideo -framework IOSurface
//         -F/System/Library/PrivateFrameworks -framework AppleNeuralEngine
//
// Environment: ANE_IDENTITY names the model key (the probe sets
// kernel_dma_mib_probe). The probe removes ANE_INMEM_HWX and ANE_INPUT_SPLIT.
// I/O sizes: from the loaded model's attributes when they are readable, else from
// <dir>/perfgate_io.json written by model_gen.py ({"cin": N, "cout": N}) at 64 bytes
// per channel (one ANE row), else 1 MiB per surface.
#import <Foundation/Foundation.h>
#import <IOSurface/IOSurface.h>
#include <dlfcn.h>
#include <mach/mach_time.h>
#include <objc/message.h>
#include <stdio.h>
#include <stdlib.h>

static const unsigned int kQoS = 21;  // QOS_CLASS_USER_INTERACTIVE

static void Fail(int code, NSString *what, NSError *error) {
  fprintf(stderr, "eval_host: %s%s%s\n", what.UTF8String, error ? ": " : "",
          error ? error.description.UTF8String : "");
  exit(code);
}

static IOSurfaceRef MakeSurface(size_t bytes) {
  NSDictionary *props = @{
    (id)kIOSurfaceWidth : @(bytes),
    (id)kIOSurfaceHeight : @1,
    (id)kIOSurfaceBytesPerElement : @1,
    (id)kIOSurfaceBytesPerRow : @(bytes),
    (id)kIOSurfaceAllocSize : @(bytes),
    (id)kIOSurfacePixelFormat : @0,
  };
  return IOSurfaceCreate((__bridge CFDictionaryRef)props);
}

// Bytes of the first live input or output in the model attributes, 0 when unknown.
static size_t SurfaceBytes(NSDictionary *attributes, NSString *list) {
  NSArray *status = attributes[@"NetworkStatusList"];
  if (![status isKindOfClass:[NSArray class]] || status.count == 0) return 0;
  NSArray *io = status[0][list];
  if (![io isKindOfClass:[NSArray class]] || io.count == 0) return 0;
  NSDictionary *d = io[0];
  size_t batch = [d[@"BatchStride"] unsignedLongValue] * MAX(1ul, [d[@"Batches"] unsignedLongValue]);
  if (batch > 0) return batch;
  return [d[@"PlaneStride"] unsignedLongValue] * MAX(1ul, [d[@"Channels"] unsignedLongValue]);
}

static NSDictionary *IoJson(NSString *mlmodelc) {
  NSString *path = [[mlmodelc stringByDeletingLastPathComponent] stringByAppendingPathComponent:@"perfgate_io.json"];
  NSData *data = [NSData dataWithContentsOfFile:path];
  if (!data) return nil;
  id j = [NSJSONSerialization JSONObjectWithData:data options:0 error:nil];
  return [j isKindOfClass:[NSDictionary class]] ? j : nil;
}

int main(int argc, char **argv) {
  @autoreleasepool {
    if (argc != 4) {
      fprintf(stderr, "usage: %s MODEL.mlmodelc WARM TIMED\n", argv[0]);
      return 2;
    }
    NSString *mlmodelc = [NSString stringWithUTF8String:argv[1]];
    int warm = atoi(argv[2]);
    int timed = atoi(argv[3]);
    if (warm < 0 || timed < 1) Fail(2, @"need WARM >= 0 and TIMED >= 1", nil);
    if (!dlopen("/System/Library/PrivateFrameworks/AppleNeuralEngine.framework/AppleNeuralEngine", RTLD_NOW)) {
      Fail(3, [NSString stringWithFormat:@"cannot load AppleNeuralEngine.framework (%s)", dlerror()], nil);
    }
    Class clientClass = NSClassFromString(@"_ANEClient");
    Class modelClass = NSClassFromString(@"_ANEModel");
    Class requestClass = NSClassFromString(@"_ANERequest");
    Class surfaceClass = NSClassFromString(@"_ANEIOSurfaceObject");
    Class deviceClass = NSClassFromString(@"_ANEDeviceInfo");
    if (!clientClass || !modelClass || !requestClass || !surfaceClass) {
      Fail(3, @"a private ANE class is missing (_ANEClient, _ANEModel, _ANERequest, _ANEIOSurfaceObject)", nil);
    }

    id client = ((id(*)(Class, SEL))objc_msgSend)(clientClass, @selector(sharedConnection));
    if (!client) Fail(3, @"_ANEClient sharedConnection returned nil", nil);
    const char *identity = getenv("ANE_IDENTITY");
    NSString *key = identity ? [NSString stringWithUTF8String:identity] : @"kernel_dma_mib_probe";
    NSURL *url = [NSURL fileURLWithPath:mlmodelc];
    id model = ((id(*)(Class, SEL, id, id))objc_msgSend)(modelClass, @selector(modelAtURL:key:), url, key);
    if (!model) Fail(4, [NSString stringWithFormat:@"_ANEModel modelAtURL failed for %@", mlmodelc], nil);

    NSError *error = nil;
    BOOL ok = ((BOOL(*)(id, SEL, id, id, unsigned int, NSError **))objc_msgSend)(
        client, @selector(compileModel:options:qos:error:), model, @{}, kQoS, &error);
    if (!ok) Fail(4, @"compileModel failed", error);
    ok = ((BOOL(*)(id, SEL, id, id, unsigned int, NSError **))objc_msgSend)(
        client, @selector(loadModel:options:qos:error:), model, @{}, kQoS, &error);
    if (!ok) Fail(4, @"loadModel failed", error);

    NSDictionary *attributes = nil;
    if ([model respondsToSelector:@selector(modelAttributes)]) {
      attributes = ((id(*)(id, SEL))objc_msgSend)(model, @selector(modelAttributes));
    }
    size_t in_bytes = SurfaceBytes(attributes, @"LiveInputList");
    size_t out_bytes = SurfaceBytes(attributes, @"LiveOutputList");
    NSDictionary *io = IoJson(mlmodelc);
    if (in_bytes == 0) in_bytes = io ? [io[@"cin"] unsignedLongValue] * 64 : (1u << 20);
    if (out_bytes == 0) out_bytes = io ? [io[@"cout"] unsignedLongValue] * 64 : (1u << 20);

    IOSurfaceRef in_surface = MakeSurface(in_bytes);
    IOSurfaceRef out_surface = MakeSurface(out_bytes);
    if (!in_surface || !out_surface) Fail(5, @"IOSurfaceCreate failed", nil);
    IOSurfaceLock(in_surface, 0, NULL);
    uint16_t *x = (uint16_t *)IOSurfaceGetBaseAddress(in_surface);
    for (size_t i = 0; i < in_bytes / 2; ++i) x[i] = 0x3C00;  // fp16 1.0
    IOSurfaceUnlock(in_surface, 0, NULL);
    id in_obj = ((id(*)(Class, SEL, IOSurfaceRef))objc_msgSend)(surfaceClass, @selector(objectWithIOSurface:), in_surface);
    id out_obj =
        ((id(*)(Class, SEL, IOSurfaceRef))objc_msgSend)(surfaceClass, @selector(objectWithIOSurface:), out_surface);
    id request = ((id(*)(Class, SEL, id, id, id, id, id, id, id))objc_msgSend)(
        requestClass, @selector(requestWithInputs:inputIndices:outputs:outputIndices:weightsBuffer:perfStats:procedureIndex:),
        @[ in_obj ], @[ @0 ], @[ out_obj ], @[ @0 ], nil, nil, @0);
    if (!request) Fail(5, @"_ANERequest construction failed", nil);

    // Map the surfaces once, so that no evaluation pays a remap.
    SEL map = @selector(mapIOSurfacesWithModel:request:cacheInference:error:);
    if ([client respondsToSelector:map]) {
      ok = ((BOOL(*)(id, SEL, id, id, BOOL, NSError **))objc_msgSend)(client, map, model, request, YES, &error);
      if (!ok) Fail(5, @"mapIOSurfacesWithModel failed", error);
    }

    SEL evaluate = @selector(evaluateWithModel:options:request:qos:error:);
    if (![client respondsToSelector:evaluate]) Fail(3, @"_ANEClient has no evaluateWithModel:options:request:qos:error:", nil);
    mach_timebase_info_data_t tb;
    mach_timebase_info(&tb);
    NSMutableArray *samples = [NSMutableArray arrayWithCapacity:timed];
    for (int i = 0; i < warm + timed; ++i) {
      uint64_t t0 = mach_absolute_time();
      ok = ((BOOL(*)(id, SEL, id, id, id, unsigned int, NSError **))objc_msgSend)(client, evaluate, model, @{}, request,
                                                                                  kQoS, &error);
      uint64_t t1 = mach_absolute_time();
      if (!ok) Fail(6, [NSString stringWithFormat:@"evaluate %d failed", i], error);
      if (i >= warm) {
        double us = (double)(t1 - t0) * tb.numer / tb.denom / 1000.0;
        [samples addObject:@(us)];
      }
    }

    NSMutableDictionary *out = [@{@"eval_us" : samples, @"route" : @"_ANEClient evaluateWithModel:options:request:qos:error:"}
        mutableCopy];
    if (deviceClass && [deviceClass respondsToSelector:@selector(aneSubType)]) {
      id subtype = ((id(*)(Class, SEL))objc_msgSend)(deviceClass, @selector(aneSubType));
      if ([subtype isKindOfClass:[NSString class]]) out[@"ane_subtype"] = subtype;
    }
    if (deviceClass && [deviceClass respondsToSelector:@selector(numANECores)]) {
      out[@"ane_cores"] = @(((unsigned int (*)(Class, SEL))objc_msgSend)(deviceClass, @selector(numANECores)));
    }
    NSData *json = [NSJSONSerialization dataWithJSONObject:out options:0 error:&error];
    if (!json) Fail(7, @"cannot serialise the samples", error);
    printf("DMA_JSON %s\n", [[NSString alloc] initWithData:json encoding:NSUTF8StringEncoding].UTF8String);
    fflush(stdout);

    SEL unmap = @selector(unmapIOSurfacesWithModel:request:);
    if ([client respondsToSelector:unmap]) ((void (*)(id, SEL, id, id))objc_msgSend)(client, unmap, model, request);
    ((BOOL(*)(id, SEL, id, id, unsigned int, NSError **))objc_msgSend)(client, @selector(unloadModel:options:qos:error:),
                                                                       model, @{}, kQoS, &error);
    CFRelease(in_surface);
    CFRelease(out_surface);
  }
  return 0;
}
