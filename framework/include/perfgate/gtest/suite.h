// Moved to perfgate/suite/suite.h (it holds no GoogleTest); kept so existing includes
// compile. The names stay available in perfgate::testing.
#ifndef PERFGATE_GTEST_SUITE_H_
#define PERFGATE_GTEST_SUITE_H_

#include "perfgate/suite/suite.h"

#endif  // PERFGATE_GTEST_SUITE_H_
