/* rtt.h - ASMP receiver RTT estimator (ASMP 3.5, eq. 6-11) and the sender's RTCP RTT (eq. 9).
 * The receiver measures a one-way delay per packet (eq. 6), scales it by (1 + a) (eq. 8) where a
 * is recomputed whenever the sender echoes this receiver's effective RTT (eq. 10), and smooths
 * the result once per report with rho (eq. 11). All values in seconds (double). */
#ifndef AMCC_RTT_H
#define AMCC_RTT_H
#include <stdint.h>
#include "amcc.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct amcc_rtt_est {
  double rho;            /* eq. 11 gain (0.5) */
  double default_rtt;    /* used until the first echo (seconds, > 0) */
  double a;              /* eq. 8 correction, valid when have_a */
  int have_a;
  double oneway_last;    /* latest T_oneway (eq. 6), may be negative with clock offset */
  double oneway_sum;     /* sum / count over the current report interval */
  uint64_t oneway_n;
  int have_oneway;
  double echo_rtt;       /* latest echoed effective RTT (eq. 9) */
  double echo_min;       /* smallest echoed RTT, valid when have_echo */
  int have_echo;
  int floor_min_echo;    /* eq. 8 never below echo_min (0 = off, the literal eq. 8) */
  double rtt;            /* smoothed t_RTT (eq. 11), 0 until the first update */
  double clamp;          /* eq. 8 kept within [echo / clamp, echo * clamp] (8; 0 = off) */
  int have_rtt;
} amcc_rtt_est;

void amcc_rtt_init (amcc_rtt_est *r, double rho, double default_rtt_s);
/* eq. 6: T_oneway = T_receiver - T_timestamp for one packet (seconds; NaN ignored). */
void amcc_rtt_on_oneway (amcc_rtt_est *r, double oneway_s);
/* eq. 10: the sender echoed t_RTT^(r-i); a = t_RTT^(r-i) / T_oneway - 1 using the latest
 * one-way delay. Returns AMCC_ERR_PARAM for rtt <= 0 / NaN / > 60 s (ignored). When no usable
 * one-way delay is known (none, or <= 0 because of clock offset) a is left unset and the echoed
 * value itself is the instantaneous sample. */
int amcc_rtt_on_echo (amcc_rtt_est *r, double rtt_eff_s);
/* eq. 8: instantaneous t_RTT = (1 + a) * T_oneway over the interval's mean one-way delay;
 * falls back to the echoed RTT, then to default_rtt. Always > 0. With floor_min_echo, never
 * below the smallest echoed RTT (the propagation RTT bounds every RTT from below). */
double amcc_rtt_instant (const amcc_rtt_est *r);
/* eq. 11 at a report: rtt = rho * inst + (1 - rho) * rtt (first sample taken as is); restarts
 * the interval's one-way mean. Returns the smoothed RTT (> 0). */
double amcc_rtt_update (amcc_rtt_est *r);
double amcc_rtt_get (const amcc_rtt_est *r); /* smoothed RTT, or default_rtt before any update */

/* eq. 9 at the sender: t_RTT = A - LSR - DLSR in RTCP 16.16 fixed-point seconds (the middle 32
 * bits of NTP timestamps). a_ntp32: arrival time of the RR; lsr, dlsr: the report block fields.
 * Returns AMCC_ERR_FIELD when LSR is 0 (no SR received yet) or the result is negative or
 * larger than 60 s; else *rtt (ns) and AMCC_OK. */
int amcc_rtcp_rtt (uint32_t a_ntp32, uint32_t lsr, uint32_t dlsr, amcc_time *rtt);
/* NTP 64-bit timestamp -> middle 32 bits (16.16), and amcc_time -> 16.16 (for tests/callers). */
static inline uint32_t amcc_ntp_mid32 (uint64_t ntp) { return (uint32_t) (ntp >> 16); }
uint32_t amcc_time_to_ntp_mid32 (amcc_time t);
/* Unix time (ns since 1970) <-> 64-bit NTP timestamp (RFC 5905, seconds since 1900 . 2^-32). */
uint64_t amcc_ntp64_from_unix (amcc_time unix_ns);
amcc_time amcc_unix_from_ntp64 (uint64_t ntp);

#ifdef __cplusplus
}
#endif
#endif
