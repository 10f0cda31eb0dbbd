/* jitter.h - cumulative jitter and the ASMP congestion indicator (ASMP 3.7, eq. 15-19).
 * CJ_k = sum_{i<=k} D_i (D from eq. 4, signed) is the one-way delay of packet k relative to the
 * first packet. A_long is the running mean of every CJ sample (eq. 16-17), A_short the mean of
 * the samples since the previous report. At each report (eq. 18):
 *   A_short > A_long + margin -> CONGESTED, else UNLOADED.
 * The paper's condition symbol is lost in the text; spec/asmp.md writes ">=". The paper's intent
 * ("UNLOADED: cumulative jitter has almost constant values") needs constant delay to read as
 * UNLOADED, which ">=" would not give, so the comparison is strict by default ("ge" = 1 gives ">="; tests/cc/test_estimators.c). */
#ifndef AMCC_JITTER_H
#define AMCC_JITTER_H
#include <stdint.h>
#include "amcc.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef enum amcc_ci_state {
  AMCC_CI_UNLOADED = 0,
  AMCC_CI_CONGESTED = 1
} amcc_ci_state;

typedef struct amcc_cumjitter {
  double cj;             /* current cumulative jitter CJ (seconds) */
  double a_long;         /* eq. 16-17 over all samples */
  uint64_t n_long;
  double a_short;        /* mean since the last assessment */
  uint64_t n_short;
  double last_short;     /* A_short used by the last assessment */
  double margin;         /* seconds A_short must exceed A_long by (default 0) */
  int ge;                /* 1: eq. 18 as spec/asmp.md writes it, A_short >= A_long + margin (0) */
  amcc_ci_state state;
} amcc_cumjitter;

/* eq. 17: A_(n+1) = A_n + (x - A_n) / (n + 1), n = samples already averaged. */
double amcc_running_mean_update (double mean, double x, uint64_t n);

void amcc_cumjitter_init (amcc_cumjitter *c, double margin_s);
/* Add one packet's D (eq. 4) in seconds: CJ += D (eq. 15), updates A_long and A_short. */
void amcc_cumjitter_add (amcc_cumjitter *c, double d_s);
/* eq. 18 at a report: compares and restarts A_short. With no sample since the previous
 * assessment the previous state is kept. */
amcc_ci_state amcc_cumjitter_assess (amcc_cumjitter *c);
/* eq. 19: gamma for a state. */
double amcc_ci_gamma (amcc_ci_state s, double gamma_unloaded, double gamma_congested);

#ifdef __cplusplus
}
#endif
#endif
