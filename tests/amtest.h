/* amtest.h - a minimal test harness for plain-C tests (lib/cc, tools/evalvid).
 *
 * AMT_CHECK(cond)           one check; a failure prints file:line and the expression.
 * AMT_NEAR(a, b, tol)       |a - b| <= tol, printing both values on failure.
 * AMT_RUN(fn)               runs void fn(void) as a named test case.
 * return amt_summary();     prints "# amtest: checks=N failures=M" (read by tests/run-all),
 *                           returns the exit status for main().
 */
#ifndef AMTEST_H
#define AMTEST_H
#include <math.h>
#include <stdio.h>

static int amt_checks, amt_failures;
static const char *amt_case = "";

#define AMT_CHECK(cond) do { amt_checks++; if (!(cond)) { amt_failures++; \
  fprintf(stderr, "FAIL %s (%s:%d): %s\n", amt_case, __FILE__, __LINE__, #cond); } } while (0)
#define AMT_NEAR(a, b, tol) do { double amt_a_ = (a), amt_b_ = (b); amt_checks++; \
  if (!(fabs(amt_a_ - amt_b_) <= (tol))) { amt_failures++; \
  fprintf(stderr, "FAIL %s (%s:%d): %s = %.9g, expected %s = %.9g (tol %g)\n", amt_case, \
          __FILE__, __LINE__, #a, amt_a_, #b, amt_b_, (double)(tol)); } } while (0)
#define AMT_RUN(fn) do { int amt_f0_ = amt_failures; amt_case = #fn; fn(); \
  printf("%s %s\n", amt_failures == amt_f0_ ? "ok  " : "FAIL", #fn); } while (0)

static inline int amt_summary(void)
{
  printf("# amtest: checks=%d failures=%d\n", amt_checks, amt_failures);
  return amt_failures ? 1 : 0;
}
#endif
