/* rtt.c - ASMP receiver RTT estimator (ASMP 3.5, eq. 6-11) and RTCP RTT (eq. 9). */
#include <math.h>
#include <string.h>
#include "amcc/rtt.h"

/* Default clamp: (1 + a) T_oneway is trusted within this factor of the last echoed RTT; guards
 * the multiplicative model when clock offset makes T_oneway tiny (a huge) */
#define RTT_SANITY_FACTOR 8.0

void
amcc_rtt_init (amcc_rtt_est *r, double rho, double default_rtt_s)
{
  memset (r, 0, sizeof *r);
  r->rho = (rho > 0 && rho <= 1) ? rho : 0.5;
  r->default_rtt = (default_rtt_s > 0 && default_rtt_s <= AMCC_MAX_RTT_S) ? default_rtt_s : 0.1;
  r->clamp = RTT_SANITY_FACTOR;
}

/* eq. 6 */
void
amcc_rtt_on_oneway (amcc_rtt_est *r, double oneway_s)
{
  if (!isfinite (oneway_s))
    return;
  r->oneway_last = oneway_s;
  r->oneway_sum += oneway_s;
  r->oneway_n++;
  r->have_oneway = 1;
}

/* eq. 10: a = t_RTT^(r-i) / T_oneway - 1 */
int
amcc_rtt_on_echo (amcc_rtt_est *r, double rtt_eff_s)
{
  if (!(rtt_eff_s > 0) || !(rtt_eff_s <= AMCC_MAX_RTT_S))
    return AMCC_ERR_PARAM;
  if (!r->have_echo || rtt_eff_s < r->echo_min)
    r->echo_min = rtt_eff_s;
  r->echo_rtt = rtt_eff_s;
  r->have_echo = 1;
  if (r->have_oneway && r->oneway_last > 0) {
    r->a = rtt_eff_s / r->oneway_last - 1.0;
    r->have_a = 1;
  } else {
    r->have_a = 0;    /* offset makes eq. 10 meaningless: use the echoed value itself */
  }
  return AMCC_OK;
}

/* eq. 8: t_RTT = (1 + a) T_oneway */
double
amcc_rtt_instant (const amcc_rtt_est *r)
{
  if (r->have_a && r->have_oneway) {
    double ow = r->oneway_n ? r->oneway_sum / (double) r->oneway_n : r->oneway_last;
    double v = (1.0 + r->a) * ow;
    if (v > 0 && isfinite (v)) {
      if (r->clamp > 0 && v > r->echo_rtt * r->clamp)    /* departure: see 'clamp' */
        v = r->echo_rtt * r->clamp;
      if (r->clamp > 0 && v < r->echo_rtt / r->clamp)
        v = r->echo_rtt / r->clamp;
      /* departure (floor_min_echo): no RTT is below the propagation RTT, best known as the
       * smallest eq. 9 RTT; an 'a' calibrated on a full queue (eq. 10) and applied to an empty
       * one would otherwise go under it and inflate eq. 12 */
      if (r->floor_min_echo && v < r->echo_min)
        v = r->echo_min;
      return v;
    }
  }
  if (r->have_echo)
    return r->echo_rtt;
  return r->default_rtt;
}

/* eq. 11: t_RTT = rho t_inst + (1 - rho) t_RTT */
double
amcc_rtt_update (amcc_rtt_est *r)
{
  double inst = amcc_rtt_instant (r);
  if (!r->have_rtt) {
    r->rtt = inst;
    r->have_rtt = 1;
  } else {
    r->rtt = r->rho * inst + (1.0 - r->rho) * r->rtt;
  }
  r->oneway_sum = 0;
  r->oneway_n = 0;
  return r->rtt;
}

double
amcc_rtt_get (const amcc_rtt_est *r)
{
  return r->have_rtt ? r->rtt : r->default_rtt;
}

/* eq. 9: t_RTT = A - LSR - DLSR, 16.16 seconds modulo 2^32 */
int
amcc_rtcp_rtt (uint32_t a_ntp32, uint32_t lsr, uint32_t dlsr, amcc_time *rtt)
{
  if (lsr == 0)
    return AMCC_ERR_FIELD;
  uint32_t v = a_ntp32 - lsr - dlsr;
  if ((int32_t) v < 0)
    return AMCC_ERR_FIELD;
  uint64_t ns = ((uint64_t) v * (uint64_t) AMCC_NS_PER_S) >> 16;
  if (ns > (uint64_t) AMCC_MAX_RTT_S * (uint64_t) AMCC_NS_PER_S)
    return AMCC_ERR_FIELD;
  *rtt = (amcc_time) ns;
  return AMCC_OK;
}

uint32_t
amcc_time_to_ntp_mid32 (amcc_time t)
{
  int64_t q = t / AMCC_NS_PER_S, r = t % AMCC_NS_PER_S;
  if (r < 0) {
    r += AMCC_NS_PER_S;
    q -= 1;
  }
  uint32_t frac = (uint32_t) (((uint64_t) r << 16) / (uint64_t) AMCC_NS_PER_S);
  return (uint32_t) ((uint64_t) q << 16) | frac;
}

#define NTP_UNIX_OFFSET_S UINT64_C(2208988800)     /* 1900-01-01 to 1970-01-01 */

uint64_t
amcc_ntp64_from_unix (amcc_time unix_ns)
{
  uint64_t s = (uint64_t) (unix_ns / AMCC_NS_PER_S) + NTP_UNIX_OFFSET_S;
  uint64_t frac = ((uint64_t) (unix_ns % AMCC_NS_PER_S) << 32) / (uint64_t) AMCC_NS_PER_S;
  return (s << 32) | frac;
}

amcc_time
amcc_unix_from_ntp64 (uint64_t ntp)
{
  int64_t s = (int64_t) (ntp >> 32) - (int64_t) NTP_UNIX_OFFSET_S;
  int64_t frac = (int64_t) (((ntp & UINT64_C(0xffffffff)) * (uint64_t) AMCC_NS_PER_S) >> 32);
  return s * AMCC_NS_PER_S + frac;
}
