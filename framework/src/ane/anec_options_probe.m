// perfgate ANEC options probe: does ANECompiler serialise a KernelDMA split option?
//
//   anec_options_probe flags.json
//
// Reads the option dictionary the probe wrote (15 split-related keys, among them the
// invented SplitKernelDMA, EnableKernelDMASplit, MaxKernelDMASize,
// AvoidOneMiBKernelDMA and SplitCoeffBuffer), passes it to ANECompiler's
// ANECCreateCompilerOptionsCFString and prints the serialised command-line options.
// The caller (ProbeAnec in probe.cc) looks for a KernelDMA split in that output. The
// seed's recorded conclusion: there is no such flag; the invented keys are dropped.
//
// UNTESTED: never compiled or run (written on Linux). The function's signature is
// not public; this assumes CFStringRef (*)(CFDictionaryRef), as public notes describe
// it ("translates a CFDictionary into these flags"). If the symbol is missing the
// probe exits 3 with a message.
//
//   clang -O2 -fobjc-arc anec_options_probe.m -o anec_options_probe -framework Foundation
//         -F/System/Library/PrivateFrameworks -framework ANECompiler
#import <Foundation/Foundation.h>
#include <dlfcn.h>
#include <stdio.h>

typedef CFStringRef (*CreateOptionsFn)(CFDictionaryRef);

int main(int argc, char **argv) {
  @autoreleasepool {
    if (argc != 2) {
      fprintf(stderr, "usage: %s flags.json\n", argv[0]);
      return 2;
    }
    NSData *data = [NSData dataWithContentsOfFile:[NSString stringWithUTF8String:argv[1]]];
    NSError *error = nil;
    id flags = data ? [NSJSONSerialization JSONObjectWithData:data options:0 error:&error] : nil;
    if (![flags isKindOfClass:[NSDictionary class]]) {
      fprintf(stderr, "anec_options_probe: cannot read %s: %s\n", argv[1],
              error ? error.description.UTF8String : "not a JSON object");
      return 2;
    }
    void *lib = dlopen("/System/Library/PrivateFrameworks/ANECompiler.framework/ANECompiler", RTLD_NOW);
    if (!lib) {
      fprintf(stderr, "anec_options_probe: cannot load ANECompiler.framework (%s)\n", dlerror());
      return 3;
    }
    CreateOptionsFn create = (CreateOptionsFn)dlsym(lib, "ANECCreateCompilerOptionsCFString");
    if (!create) {
      fprintf(stderr, "anec_options_probe: ANECCreateCompilerOptionsCFString not found\n");
      return 3;
    }
    CFStringRef serialized = create((__bridge CFDictionaryRef)flags);
    if (!serialized) {
      fprintf(stderr, "anec_options_probe: ANECCreateCompilerOptionsCFString returned NULL\n");
      return 4;
    }
    printf("%s\n", [(__bridge NSString *)serialized UTF8String]);
    CFRelease(serialized);
  }
  return 0;
}
