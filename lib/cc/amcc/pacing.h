/* pacing.h - sender pacing: how long the next packet must wait so that the instantaneous rate
 * stays at most factor x rate. TFMCC (RFC 4654 3.7) paces at 8 s / X; factor 1 is exactly that,
 * a factor above 1 lets a sender whose encoder overshoots at key frames catch up. */
#ifndef AMCC_PACING_H
#define AMCC_PACING_H
#include <stddef.h>
#include <amcc/amcc.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Inter-packet interval after a packet of `bytes`: 8 * bytes / (factor * rate_bps) seconds
 * (RFC 4654 3.7 with X = factor * rate). 0 (no wait) when rate_bps or factor is not positive or
 * not finite; saturates instead of overflowing. */
amcc_time amcc_pacing_interval (size_t bytes, double rate_bps, double factor);

#ifdef __cplusplus
}
#endif
#endif
