/* asmp_receiver.c - the ASMP receiver (spec/asmp.md "Receiver", papers/000 3.2-3.8); its regimes
 * are in asmp_regime.c, the parameters in asmp_params.c. Internally rates are bytes/s as in the
 * paper; the API speaks bit/s. */
#include <math.h>
#include <string.h>
#include "amcc/asmp.h"
#include "amcc/tcpmodel.h"
#include "asmp_regime.h"

static double
clamp (double v, double lo, double hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

void
amcc_asmp_receiver_init (amcc_asmp_receiver *rx, const amcc_asmp_params *p,
    uint32_t clock_rate_hz)
{
  memset (rx, 0, sizeof *rx);
  if (p && amcc_asmp_params_validate (p) == AMCC_OK)
    rx->p = *p;
  else
    amcc_asmp_params_init (&rx->p);
  rx->clock_rate = clock_rate_hz ? clock_rate_hz : 90000;
  amcc_seq_init (&rx->seq);
  amcc_interarrival_init (&rx->ia);
  amcc_cumjitter_init (&rx->cj, rx->p.ci_margin_s);
  rx->cj.ge = rx->p.ci_ge != 0;
  amcc_loss_filter_init (&rx->lf);
  amcc_rtt_init (&rx->rtt, rx->p.rho, rx->p.default_rtt_s);
  rx->rtt.clamp = rx->p.rtt_clamp;
  rx->rtt.floor_min_echo = rx->p.rtt_floor != 0;
  rx->iv_start = AMCC_TIME_NONE;
  rx->last_arrival = AMCC_TIME_NONE;
  rx->report_at = AMCC_TIME_NONE;
  amcc_loss_events_init (&rx->ev);
  rx->base_owd = AMCC_TIME_NONE;
  rx->iv_gap_q = rx->prev_gap_q = -1;
  rx->iv_min_owd = AMCC_TIME_NONE;
  rx->iv_send_min = rx->iv_send_max = AMCC_TIME_NONE;
  rx->last_send = AMCC_TIME_NONE;
  rx->lm_read = rx->an_read = AMCC_TIME_NONE;
  rx->queue_since = AMCC_TIME_NONE;
  rx->event_at[0] = rx->event_at[1] = AMCC_TIME_NONE;
  rx->mode = rx->p.startup_gain > 0 ? AMCC_ASMP_STARTUP : AMCC_ASMP_DELAY;
  if (!rx->p.adaptive_mode)
    rx->mode = AMCC_ASMP_COMPETING;   /* the paper's one regime: eq. 12-14 with eq. 18-19 */
}

/* P in eq. 12-13: TCP's segment size rather than the mean of small video packets (RFC 4828
 * 4.1), but never more than pkt_rate_ratio x TCP's packet rate: P <= ratio x mean size */
double
amcc_asmp_packet_size (const amcc_asmp_params *p, double mean_pkt)
{
  if (!(p->nominal_pkt_bytes > 0))
    return mean_pkt;
  if (p->pkt_rate_ratio > 0 && p->pkt_rate_ratio * mean_pkt < p->nominal_pkt_bytes)
    return p->pkt_rate_ratio * mean_pkt;
  return p->nominal_pkt_bytes;
}

/* recv_least_delay: packets within this of an interval's least one-way delay were read on time */
#define LEAST_DELAY_TOL (2 * AMCC_NS_PER_MS)

/* eq. 6 in ns: now - send_time, or 0 when the send time is missing or more than 2^62 ns
 * (146 years) away from now, which also keeps owd_j - owd_i (eq. 4) within int64 */
static int
oneway_delay (amcc_time now, amcc_time send_time, amcc_time *owd)
{
  const amcc_time lim = INT64_C(1) << 62;
  if (send_time == AMCC_TIME_NONE)
    return 0;
  if ((send_time < 0 && now > INT64_MAX + send_time) || (send_time > 0 && now < INT64_MIN + send_time))
    return 0;
  *owd = now - send_time;
  return *owd <= lim && *owd >= -lim;
}

/* Loss events (RFC 5348 5.2: losses within one RTT are one event). The first event seeds the
 * history with the interval that gives eq. 12 the rate received so far (RFC 5348 6.3.1). */
static void
note_loss_events (amcc_asmp_receiver *rx, amcc_time now, uint64_t ext)
{
  double rtt = amcc_rtt_get (&rx->rtt);
  int ev = amcc_loss_events_on_packet (&rx->ev, now, ext, amcc_time_from_s (rtt));
  if (ev & AMCC_LOSS_EV_FIRST) {
    double secs = rx->iv_start != AMCC_TIME_NONE ? amcc_time_to_s (now - rx->iv_start) : 0;
    double x = rx->recv_Bps > 0 ? rx->recv_Bps : secs > 0.1 ? rx->iv_bytes / secs
        : rx->have_rate ? rx->rate_Bps : rx->p.initial_rate_bps / 8.0;
    double P = amcc_asmp_packet_size (&rx->p, rx->mean_pkt > 0 ? rx->mean_pkt : 1000);
    double l = amcc_pftk_loss_for_rate (x, P, rtt);
    amcc_loss_history_push (&rx->ev.hist, l > 0 ? 1.0 / l : 1.0);
  }
}

void
amcc_asmp_receiver_on_extra_bytes (amcc_asmp_receiver *rx, uint32_t bytes)
{
  rx->iv_bytes += bytes;
  rx->lm_after += bytes;
}

static void close_interval (amcc_asmp_receiver *rx, amcc_time now);

int
amcc_asmp_receiver_on_rtp (amcc_asmp_receiver *rx, amcc_time now, uint16_t seq,
    uint32_t rtp_ts, amcc_time send_time, uint32_t packet_bytes)
{
  uint64_t ext = 0;
  int least = 0;
  /* window_s: the interval the rules judge does not grow with the RTCP interval (the group):
   * over 5 s the least queueing delay always catches a Reno flow's drained queue, so its losses
   * read as our bursts and DELAY backed off at every report (dumbbell-45: 8 % of the share) */
  if (rx->p.window_s > 0 && amcc_time_to_s (rx->rtcp_iv) > rx->p.window_s
      && rx->iv_start != AMCC_TIME_NONE && amcc_time_to_s (now - rx->iv_start) >= rx->p.window_s) {
    close_interval (rx, now);
    rx->windows++;
  }
  amcc_seq_result res = amcc_seq_update (&rx->seq, seq, &ext);
  if (res < AMCC_SEQ_NEW)
    return res;
  if (rx->p.loss_events)
    note_loss_events (rx, now, ext);
  /* eq. 4-5 in timestamp units; D in seconds feeds the cumulative jitter (eq. 15) */
  int64_t d = amcc_interarrival_update (&rx->ia, amcc_time_to_rtp_units (now, rx->clock_rate), rtp_ts);
  double d_s = (double) d / rx->clock_rate;
  amcc_time owd;
  if (oneway_delay (now, send_time, &owd)) {
    amcc_rtt_on_oneway (&rx->rtt, amcc_time_to_s (owd));                 /* eq. 6 */
    if (rx->base_owd == AMCC_TIME_NONE || owd < rx->base_owd)
      rx->base_owd = owd;
    if (rx->iv_min_owd == AMCC_TIME_NONE || owd < rx->iv_min_owd)
      rx->iv_min_owd = owd;
    /* the first packet after a gap waited behind what the lost one met: a full queue when
     * the loss was an overflow, none when the path dropped it (random_loss_q_s) */
    if (rx->have_hi && ext > rx->hi_ext + 1)
      rx->iv_gap_q = fmax (rx->iv_gap_q, amcc_time_to_s (owd - rx->base_owd));
    if (owd <= rx->iv_min_owd + LEAST_DELAY_TOL) {   /* recv_least_delay's candidate */
      rx->lm_read = now;
      rx->lm_after = 0;
      least = 1;
    }
    if (rx->last_send != AMCC_TIME_NONE && send_time > rx->last_send)
      rx->iv_send_gap = fmax (rx->iv_send_gap, amcc_time_to_s (send_time - rx->last_send));
    if (rx->last_send == AMCC_TIME_NONE || send_time > rx->last_send)
      rx->last_send = send_time;
    if (rx->iv_send_min == AMCC_TIME_NONE || send_time < rx->iv_send_min)
      rx->iv_send_min = send_time;
    if (rx->iv_send_max == AMCC_TIME_NONE || send_time > rx->iv_send_max)
      rx->iv_send_max = send_time;
    rx->iv_send_bytes += packet_bytes;
    rx->iv_send_n++;
    if (rx->p.cj_use_send_time) {
      /* eq. 4 with S = send time: D = (R_j - R_i) - (S_j - S_i) = owd_j - owd_i */
      d_s = rx->have_prev_owd ? amcc_time_to_s (owd - rx->prev_owd) : 0.0;
      rx->prev_owd = owd;
      rx->have_prev_owd = 1;
    }
  }
  if (!rx->have_hi || ext > rx->hi_ext) {
    rx->hi_ext = ext;
    rx->have_hi = 1;
  }
  amcc_cumjitter_add (&rx->cj, d_s);
  if (rx->mean_pkt <= 0)
    rx->mean_pkt = packet_bytes;
  else
    rx->mean_pkt += ((double) packet_bytes - rx->mean_pkt) / 16.0;
  rx->iv_bytes += packet_bytes;
  if (!least)
    rx->lm_after += packet_bytes;
  if (rx->iv_start == AMCC_TIME_NONE)
    rx->iv_start = now;
  rx->last_arrival = now;
  return res;
}

int
amcc_asmp_receiver_on_rtt_echo (amcc_asmp_receiver *rx, amcc_time now, amcc_time rtt)
{
  if (rtt <= 0 || rtt > AMCC_ASMP_MAX_WIRE_RTT)
    return AMCC_ERR_PARAM;
  return amcc_rtt_on_echo (&rx->rtt, amcc_time_to_s (rtt));
}

/* eq. 13: no loss since the previous report -> at most one packet per RTT more */
static double
rate_no_loss (double r_prev, double pkt, double rtt)
{
  return r_prev + pkt / rtt;
}

/* eq. 14: r = gamma r_inst + (1 - gamma) r_prev */
static double
rate_smooth (double r_inst, double r_prev, double gamma)
{
  return gamma * r_inst + (1.0 - gamma) * r_prev;
}

/* The rate the packets of this interval left the sender at, from their send times (the
 * sender's clock: its offset cancels): the n - 1 gaps between the first and the last carried
 * all but one packet. The `lost` packets found in the interval were sent in that span too
 * (counted at the mean size): without them a lossy interval reads low by its loss fraction,
 * and a queue we overfill looks like a competitor's. 0 when unknown (under 4 packets or
 * 100 ms). */
static double
send_rate (const amcc_asmp_receiver *rx, uint32_t lost)
{
  if (rx->iv_send_n < 4 || rx->iv_send_min == AMCC_TIME_NONE)
    return 0;
  double span = amcc_time_to_s (rx->iv_send_max - rx->iv_send_min);
  if (!(span >= 0.1))
    return 0;
  double n = rx->iv_send_n + (double) lost;
  double bytes = rx->iv_send_bytes + (double) lost * rx->iv_send_bytes / rx->iv_send_n;
  return bytes * (n - 1) / n / span;
}

/* The rate received in the interval (recv_least_delay). A receiver that the machine stalls reads
 * its socket in bursts: the arrival times bunch, so the bytes between two reports read low
 * before a burst and high after it, although the path carried the same packets. The packet of
 * least one-way delay in an interval was read on time if any was (a stall only adds delay), so
 * the rate is measured from the last such packet of the interval before (the anchor) to this
 * interval's: the bytes read after the one up to the other, over the time between their reads.
 * (The latest packet within LEAST_DELAY_TOL of the least delay: with no queue the window then
 * spans about the interval.) Under 0.1 s between them (a queue that drained, then grew) the
 * anchor stays and the last rate holds, for at most 1 s; without send times, at the first
 * interval, and after that: the bytes over the interval between reports. */
static double
recv_rate (amcc_asmp_receiver *rx, double secs)
{
  double arrival = secs > 0 ? (double) rx->iv_bytes / secs : 0;
  if (!rx->p.recv_least_delay)
    return arrival;
  double window = rx->lm_read != AMCC_TIME_NONE && rx->an_read != AMCC_TIME_NONE
      ? amcc_time_to_s (rx->lm_read - rx->an_read) : 0;
  if (window >= 0.1) {
    double r = (double) (rx->an_bytes + rx->iv_bytes - rx->lm_after) / window;
    rx->an_read = rx->lm_read;
    rx->an_bytes = rx->lm_after;
    rx->an_secs = 0;
    return r;
  }
  if (rx->an_read != AMCC_TIME_NONE && rx->an_secs + secs < 1.0 && rx->recv_Bps > 0) {
    rx->an_bytes += rx->iv_bytes;            /* wait: the anchor stays */
    rx->an_secs += secs;
    return rx->recv_Bps;
  }
  rx->an_read = rx->lm_read;
  rx->an_bytes = rx->lm_read != AMCC_TIME_NONE ? rx->lm_after : 0;
  rx->an_secs = 0;
  return arrival;
}

/* The rise over what arrives that a report may carry: one step per whole window_s since our
 * last report. The sender moves only when it hears us, so what arrives stays at the rate of our
 * last report; without this a report every 5 s (a large group) rose 5x slower. */
static double
step_since_report (const amcc_asmp_receiver *rx, amcc_time now, double step)
{
  if (!(rx->p.window_s > 0) || rx->report_at == AMCC_TIME_NONE)
    return step;
  return step * fmax (1.0, floor (amcc_time_to_s (now - rx->report_at) / rx->p.window_s));
}

/* The paper's rule (eq. 12-14) and the deviations of the first session (README "Decisions"):
 * P is the packet size the equations use, step the largest rise of one report. */
double
amcc_asmp_rate_equations (const amcc_asmp_receiver *rx, const interval_view *v, double r_prev,
    double P, double step, double gamma, amcc_time now)
{
  double r = r_prev;            /* no packet in the interval: no information */
  if (rx->mean_pkt > 0 && v->lossy && v->l > 0)
    r = rate_smooth (amcc_pftk_rate (P, v->rtt, v->l), r_prev, gamma);        /* eq. 12, 14 */
  else if (rx->mean_pkt > 0 && v->any) {
    double r_inst = rate_no_loss (r_prev, P, v->rtt);                       /* eq. 13 */
    /* COMPETING: between losses the loss-event rate falls as the open interval grows, so eq.
     * 12 may allow more than eq. 13 (TFRC's rule; with the paper's interval loss it never does) */
    if (rx->p.loss_events && v->l > 0 && rx->mode == AMCC_ASMP_COMPETING)
      r_inst = fmax (r_inst, fmin (amcc_pftk_rate (P, v->rtt, v->l), r_prev + step));
    r = rate_smooth (r_inst, r_prev, gamma);                                  /* eq. 14 */
  }
  if (!isfinite (r))
    r = r_prev;
  /* Deviation (step_limit): "in order to avoid abrupt changes" the rate "must not be increased
   * more than one P/RTT" (papers/000 3.6), also when eq. 12 computed it */
  if (rx->p.step_limit && rx->mean_pkt > 0 && r > r_prev + step)
    r = r_prev + step;
  /* Deviation (param recv_rate_cap, 0 = off): eq. 13 adds a packet per RTT to the receiver's own
   * previous estimate even when the sender is held far below it by another receiver, so after
   * that receiver leaves the group rate would jump to an unbounded value. Capping at a multiple
   * of the rate actually received (as TFRC/TFMCC do) keeps the paper's intended smooth recovery
   * (papers/000 4.4, late join). */
  if (rx->p.recv_rate_cap > 0 && v->recv > 0 && r > rx->p.recv_rate_cap * v->recv)
    r = rx->p.recv_rate_cap * v->recv;
  /* Deviation (recv_rate_step): eq. 13 grants one P per RTT over the rate in use (papers/000
   * 3.6; spec/asmp.md "no slow start"). When the sender lags our reports (the encoder takes a
   * new rate at its next key frame) r_prev is not in use yet: rise only to what arrives + step */
  if (rx->p.recv_rate_step && v->recv > 0 && rx->mean_pkt > 0 && r > r_prev)
    r = fmin (r, fmax (r_prev, v->recv + step_since_report (rx, now, step)));
  return r;
}

int
amcc_asmp_receiver_resume (amcc_asmp_receiver *rx, amcc_time now, double rate_bps)
{
  if (!(rx->p.resume_s > 0) || !(rate_bps > 0) || !isfinite (rate_bps) || rx->have_rate)
    return AMCC_ERR_PARAM;
  rx->rate_Bps = clamp (rate_bps / 8.0, rx->p.min_rate_bps / 8.0, rx->p.max_rate_bps / 8.0);
  rx->resume_Bps = rx->rate_Bps;
  rx->resume_until = now + amcc_time_from_s (rx->p.resume_s);
  rx->have_rate = 1;
  if (rx->mode == AMCC_ASMP_STARTUP)
    rx->mode = AMCC_ASMP_DELAY;
  return AMCC_OK;
}

/* Deviation (resume_s): a restarted sender's encoder needs seconds to reach the rate its path
 * carried a moment ago, and recv_rate_cap / DELAY's rise would tie the reports to that ramp:
 * hold the old rate until what arrives confirms it, or the path says otherwise */
static double
rate_resumed (amcc_asmp_receiver *rx, const interval_view *v, double r, amcc_time now)
{
  if (rx->resume_Bps <= 0)
    return r;
  if (v->lossy || v->q > rx->p.queue_target_s || now > rx->resume_until
      || v->recv >= 0.9 * rx->resume_Bps) {
    rx->resume_Bps = 0;
    return r;
  }
  return fmax (r, rx->resume_Bps);
}

/* Closes the measurement interval: eq. 2-3, 11, 12-14, 18-19 and the regimes; rx->last holds
 * the result (report_seq: the next report's) */
static void
close_interval (amcc_asmp_receiver *rx, amcc_time now)
{
  const double lo = rx->p.min_rate_bps / 8.0, hi = rx->p.max_rate_bps / 8.0;
  amcc_seq_interval iv;
  amcc_seq_interval_close (&rx->seq, &iv);
  double lf = iv.expected > 0 ? amcc_loss_filter_push (&rx->lf, iv.fraction)     /* eq. 2-3 */
      : amcc_loss_filter_value (&rx->lf);
  interval_view v;
  v.rtt = amcc_rtt_update (&rx->rtt);                                          /* eq. 11 */
  amcc_ci_state ci = amcc_cumjitter_assess (&rx->cj);                           /* eq. 18 */
  v.gamma = amcc_ci_gamma (ci, rx->p.gamma_unloaded, rx->p.gamma_congested);   /* eq. 19 */
  v.secs = rx->iv_start != AMCC_TIME_NONE ? amcc_time_to_s (now - rx->iv_start) : 0;
  v.recv = recv_rate (rx, v.secs);
  v.any = iv.received > 0;
  v.q = rx->iv_min_owd != AMCC_TIME_NONE ? amcc_time_to_s (rx->iv_min_owd - rx->base_owd) : -1;
  v.send = send_rate (rx, iv.lost);
  v.send_gap = rx->iv_send_gap;
  v.lf = lf;
  v.loss_q = fmax (rx->iv_gap_q, rx->prev_gap_q);     /* a loss is found a few packets late */
  rx->prev_gap_q = rx->iv_gap_q;
  rx->iv_gap_q = -1;
  v.send_gap_norm = rx->send_gap_norm;
  if (rx->iv_send_n > 0)
    rx->send_gap_norm = rx->send_gap_norm > 0
        ? rx->send_gap_norm + (rx->iv_send_gap - rx->send_gap_norm) / 8 : rx->iv_send_gap;
  double p_ev = amcc_loss_events_p (&rx->ev);
  if (rx->p.loss_events) {
    v.l = p_ev;
    if (rx->p.loss_per_segment && rx->mean_pkt > 0 && p_ev > 0)
      v.l = fmin (1.0, p_ev * amcc_asmp_packet_size (&rx->p, rx->mean_pkt) / rx->mean_pkt);
    v.lossy = rx->ev.events > rx->ev_seen;
  } else {
    v.l = lf;
    v.lossy = iv.lost > 0;
  }
  rx->ev_seen = rx->ev.events;
  if (!rx->have_rate) {
    /* first report: start from the rate actually received (over >= 200 ms: the first key frame
     * arrives as a burst), at most the configured initial rate */
    double init = rx->p.initial_rate_bps / 8.0, first = v.recv > 0 ? v.recv : init;
    if (rx->p.startup_gain > 0 && (v.secs < 0.2 || first > init))
      first = init;             /* the start-up climbs from the sender's initial rate */
    rx->rate_Bps = clamp (first, lo, hi);
    rx->have_rate = 1;
  }
  double r_prev = rx->rate_Bps, r;
  if (rx->p.adaptive_mode)
    r = amcc_asmp_rate_adaptive (rx, &v, r_prev, now);
  else
    r = amcc_asmp_rate_equations (rx, &v, r_prev, amcc_asmp_packet_size (&rx->p, rx->mean_pkt),
        rx->mean_pkt > 0 ? amcc_asmp_packet_size (&rx->p, rx->mean_pkt) / v.rtt : 0, v.gamma, now);
  /* Deviation (standing_queue_cap, the paper's one regime only): CONGESTED reports in a row mean
   * a standing queue (one key-frame burst flips a single report), so the sender exceeds the
   * bottleneck and what arrived is its rate; a deep drop-tail queue delays the loss eq. 12 needs
   * by seconds, while eq. 14 with gamma = 0.2 (eq. 19) only slows the increase. Two intervals span
   * one GOP of the encoder. adaptive_mode replaces it with the measured queue (DELAY). */
  rx->congested_run = ci == AMCC_CI_CONGESTED ? rx->congested_run + 1 : 0;
  double secs2 = v.secs + rx->prev_iv_secs;
  if (!rx->p.adaptive_mode && rx->p.standing_queue_cap && rx->congested_run >= 2 && secs2 > 0
      && rx->iv_bytes > 0) {
    double recv2 = (double) (rx->iv_bytes + rx->prev_iv_bytes) / secs2;
    if (r > recv2)
      r = recv2;
  }
  rx->prev_iv_bytes = rx->iv_bytes;
  rx->prev_iv_secs = v.secs;
  r = rate_resumed (rx, &v, r, now);
  rx->rate_prev_Bps = r_prev;
  rx->rate_Bps = clamp (r, lo, hi);
  /* a paused sender's interval read low: the next, whose window may be too short to measure,
   * holds the rate from before the pause, not that (the backlog's loss then cut to it) */
  if (v.recv > 0 && !amcc_asmp_paused (&rx->p, &v))
    rx->recv_Bps = v.recv;

  amcc_asmp_report rep;
  memset (&rep, 0, sizeof rep);
  rep.rate_bps = rx->rate_Bps * 8.0;
  rep.loss = lf;
  rep.rtt_s = v.rtt;
  rep.jitter_s = rx->ia.jitter / rx->clock_rate;
  rep.cj_short_s = rx->cj.last_short;
  rep.ci = ci;
  rep.have_echo = rx->rtt.have_echo;
  rep.report_seq = rx->report_seq;
  rep.mode = rx->mode;
  rep.queue_s = v.q > 0 ? v.q : 0;
  rep.loss_event_rate = p_ev;
  rx->last = rep;
  rx->iv_bytes = 0;
  rx->iv_start = now;
  rx->iv_min_owd = AMCC_TIME_NONE;
  rx->lm_read = AMCC_TIME_NONE;
  rx->lm_after = 0;
  rx->iv_send_min = rx->iv_send_max = AMCC_TIME_NONE;
  rx->iv_send_bytes = 0;
  rx->iv_send_n = 0;
  rx->iv_send_gap = 0;
}

void
amcc_asmp_receiver_make_report (amcc_asmp_receiver *rx, amcc_time now, amcc_asmp_report *out)
{
  /* window_s: an open interval under half a window is added to the next one (a short interval's
   * rate is noise) and the report says what the last closed one found */
  if (!(rx->windows > 0 && amcc_time_to_s (now - rx->iv_start) < rx->p.window_s / 2))
    close_interval (rx, now);
  rx->windows = 0;
  rx->report_at = now;
  rx->last.report_seq = rx->report_seq++;
  if (out)
    *out = rx->last;
}

/* eq. 20 inverted: z = (T / lambda) ln(1 + u (e^lambda - 1)) */
amcc_time
amcc_asmp_feedback_delay (amcc_time t_rand, double lambda, double u)
{
  if (t_rand <= 0)
    return 0;
  if (!(u >= 0))
    u = 0;
  if (u >= 1)
    u = 0x1.fffffffffffffp-1;
  double t = (double) t_rand, z;
  if (!(lambda > 0) || !isfinite (lambda))
    z = u * t;
  else if (lambda > 50)   /* same value, ln(1 + u(e^l - 1)) = l + ln(e^-l + u(1 - e^-l)): no overflow */
    z = t / lambda * (lambda + log (exp (-lambda) - u * expm1 (-lambda)));
  else
    z = t / lambda * log1p (u * expm1 (lambda));
  z = clamp (z, 0, t);
  return (amcc_time) z;
}

amcc_time
amcc_asmp_receiver_schedule (amcc_asmp_receiver *rx, amcc_time now, amcc_time rtcp_interval,
    uint32_t group_size, double uniform_u)
{
  rx->suppressed = 0;
  rx->heard = 0;
  rx->heard_min_bps = 0;
  rx->rtcp_iv = rtcp_interval;
  if (rtcp_interval <= rx->p.t_suspend)
    return now + rtcp_interval;
  amcc_time t_rand = rx->p.t_rand > 0 ? rx->p.t_rand : rx->p.t_suspend;
  double lambda = rx->p.lambda > 0 ? rx->p.lambda : log (group_size > 1 ? (double) group_size : 1.0) + 1.0;
  return now + amcc_asmp_feedback_delay (t_rand, lambda, uniform_u);
}

int
amcc_asmp_receiver_on_peer_report (amcc_asmp_receiver *rx, amcc_time now, double peer_rate_bps)
{
  if (!(peer_rate_bps > 0) || !isfinite (peer_rate_bps))
    return rx->suppressed;
  if (!rx->heard || peer_rate_bps < rx->heard_min_bps)
    rx->heard_min_bps = peer_rate_bps;
  rx->heard = 1;
  if (!rx->have_rate)
    return rx->suppressed;      /* nothing of ours to compare yet: report */
  double own = rx->last.rate_bps;
  /* never suppress when our rate is below the peer's: the slowest receiver is always heard */
  if (peer_rate_bps <= own
      && (rx->p.suppress_if_lower || own - peer_rate_bps <= rx->p.similarity * own))
    rx->suppressed = 1;
  return rx->suppressed;
}

int
amcc_asmp_receiver_suppressed (const amcc_asmp_receiver *rx)
{
  return rx->suppressed;
}
