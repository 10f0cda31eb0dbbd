/* asmp_regime.c - the ASMP receiver's regimes (adaptive_mode, lib/cc/README.md "Regimes"):
 * STARTUP, DELAY and COMPETING, and the evidence that moves between them. Called by
 * asmp_receiver.c with the view of each closed interval. Rates in bytes/s. */
#include <math.h>
#include "amcc/asmp.h"
#include "asmp_regime.h"
#include "amcc/tcpmodel.h"

/* DELAY: a standing queue of q seconds is ours (we are alone): send what the bottleneck
 * delivers, less what drains q over drain_s (at most half of it) */
static double
rate_drain (const amcc_asmp_params *p, double recv, double q)
{
  return recv * (1.0 - fmin (0.5, q / p->drain_s));
}

/* DELAY without a standing queue. A loss event here is a burst (a key frame) overflowing the
 * queue: back off by delay_backoff from what arrived and remember that rate as the knee (and
 * the highest two-report rate of such losses as knee2, for knee_loss_frac); near
 * the knee (within 10 %) rise by at most knee_step x r_prev per report, above it forget it.
 * For knee_hold_s the rate stays at most knee_hold_frac x the target the burst came at: probing
 * back to it every ~7 s lost 2-5 packets each time, 0.66 % of the demo's slow receiver's.
 * What arrived is the higher of one interval's rate and, while drained, the two-report mean
 * (recv2); and with the path drained the cut is at most burst_cut_max x r_prev: a burst into an
 * empty queue says the rate is near the bottleneck's, not far above it. An interval without a
 * key frame reads 15-30 % low, x264 delivers 5-10 % under its target, and a backoff from such an
 * interval cut the lone receiver of net-asmp-elements 536 -> 348 kbit/s on a 0.55 % burst loss
 * (asmp-replay of a failed run; the climb back outlasted the test's window). */
static double
rate_delay (amcc_asmp_receiver *rx, const interval_view *v, double recv2, int drained,
    double r_prev, amcc_time now)
{
  const amcc_asmp_params *p = &rx->p;
  if (v->lossy && v->recv > 0) {
    double arrived = fmax (v->recv, recv2);
    rx->knee_Bps = arrived;
    /* drained, at most the target: more arrived only as a burst the bottleneck let through
     * (the demo's start-up read 607-701 kbit/s behind its 600 kbit/s link, and a later loss 10 %
     * below that sent the lone receiver COMPETING, 1.2 x over its link, in 8 demo runs of 14;
     * asmp-replay of all 14 with the cap: none); over a queue as measured (capped there too, ns-3 fairness-l2 seed 8 fell to 38 %) */
    double k2 = drained ? fmin (recv2, r_prev) : recv2;
    if (k2 > rx->knee2_Bps || amcc_time_to_s (now - rx->knee2_at) > p->compete_hold_s) {
      rx->knee2_Bps = k2;
      rx->knee2_at = now;
    }
    /* a new burst (one found a report late is the same) at the held level, or none held: a
     * loss below the level within the hold is not one of its probes. The level is the lower of
     * the target and what arrived: a burst read above the target (598 kbit/s at 500) or a
     * target the encoder did not follow (start-up's 624 while 533 arrived) held above the
     * link, and the demo lost packets every 7-8 s. The target is the higher of the last two:
     * a stalled sender's backlog, lost as the previous interval had cut the target to the
     * floor, held the demo there for 20 s. */
    if (!rx->was_lossy && (rx->hold_Bps <= 0 || r_prev >= p->knee_hold_frac * rx->hold_Bps
            || amcc_time_to_s (now - rx->hold_at) >= p->knee_hold_s)) {
      rx->hold_Bps = fmin (fmax (r_prev, rx->rate_prev_Bps), arrived);
      rx->hold_at = now;
    }
    double r = arrived * (1.0 - p->delay_backoff);      /* idempotent: no compounding */
    if (drained && p->burst_cut_max > 0)
      r = fmax (r, (1.0 - p->burst_cut_max) * r_prev);
    return fmin (r_prev, r);
  }
  double step = rx->mean_pkt / v->rtt;
  /* the encoder ramps up over seconds (VBV refill): bound the rise by what arrives, or a
   * target far above it is spent at once when the picture gets busy */
  if (p->delay_rise > 0 && v->recv > 0)
    step = fmin (step, p->delay_rise * v->recv);
  if (rx->knee_Bps > 0 && r_prev > 1.1 * rx->knee_Bps)
    rx->knee_Bps = rx->knee2_Bps = 0;
  if (rx->knee_Bps > 0 && r_prev >= 0.9 * rx->knee_Bps)
    step = fmin (step, p->knee_step * r_prev);
  double r = amcc_asmp_rate_equations (rx, v, r_prev, rx->mean_pkt, step, v->gamma, now);
  if (p->knee_hold_s > 0 && rx->hold_Bps > 0
      && amcc_time_to_s (now - rx->hold_at) < p->knee_hold_s)
    r = fmin (r, fmax (r_prev, p->knee_hold_frac * rx->hold_Bps));
  return r;
}

/* A random loss (random_loss_q_s): no regime backs off, but the TCP equation at the filtered
 * loss fraction (eq. 2-3) bounds the rate as it bounds a TCP flow's on the same path (eq. 12),
 * approached as eq. 14 smooths. A drop-tail overflow always shows a queue on the packet after
 * the gap (at least one packet's transmission time: 13 ms at 600 kbit/s); a path that drops at
 * random, none. */
static double
random_loss_cap (const amcc_asmp_receiver *rx, const interval_view *v, double r, double r_prev)
{
  double P = amcc_asmp_packet_size (&rx->p, rx->mean_pkt);
  double x = v->lf > 0 && rx->mean_pkt > 0 ? amcc_pftk_rate (P, v->rtt, v->lf) : 0;  /* eq. 12 */

  if (!(x > 0) || r <= x)
    return r;
  return fmax (x, fmin (r, v->gamma * x + (1.0 - v->gamma) * r_prev));          /* eq. 14 */
}

static int
second_event_within (const amcc_asmp_receiver *rx, amcc_time now, double hold_s)
{
  return rx->event_at[1] != AMCC_TIME_NONE && amcc_time_to_s (now - rx->event_at[1]) <= hold_s;
}

/* Regimes (adaptive_mode). The paper's delay sensitivity (eq. 18-19) loses to loss-based TCP
 * the way Vegas loses to Reno (papers/003 3.1): TCP fills the drop-tail queue, the indicator reads
 * CONGESTED and the rate never grows. Which regime holds is read from our own measurements:
 *   STARTUP   -> up to startup_gain per second over what arrived, until a loss event or a
 *                queue (least queueing delay > queue_hold_s);
 *   DELAY     -> eq. 13 (the mean P, eq. 19's gamma); a standing queue (least queueing delay of
 *                an interval > queue_target_s) is drained, a queue above queue_hold_s stops
 *                the rise, a loss without a standing queue is a burst (rate_delay). A queue
 *                that outlives compete_after_s of draining and still grows, or a second loss
 *                event within compete_hold_s after the queue stood compete_after_s / 2 (or
 *                below 0.9 x the rate of the loss before), means a loss-based flow holds the
 *                queue:
 *   COMPETING -> eq. 12-13 with TCP's segment size, loss events and gamma_unloaded, until
 *                compete_hold_s pass without such evidence or the queue stays drained for 3
 *                reports. */
static double regime_rate (amcc_asmp_receiver *rx, const interval_view *v, double r_prev,
    amcc_time now);

double
amcc_asmp_rate_adaptive (amcc_asmp_receiver *rx, const interval_view *v, double r_prev,
    amcc_time now)
{
  const amcc_asmp_params *p = &rx->p;
  /* The sender paused (the machine stopped it: x264, the pacer and every decoder share two
   * cores): the interval's rate measured the pause, not the path; judged, a 1-s SIGSTOP behind
   * 600 kbit/s read 53 kbit/s, the backlog sent after it lost 9 % and the backoff cut to 0.9 x
   * that: the lone receiver went to the floor (asmp_receiver.c keeps that rate out too) */
  if (amcc_asmp_paused (p, v))
    return r_prev;
  interval_view w = *v;
  int random = v->lossy && p->random_loss_q_s > 0 && v->loss_q >= 0
      && v->loss_q < p->random_loss_q_s && v->lf <= p->random_loss_max;
  if (random) {
    w.lossy = 0;
    rx->random_losses++;
  }
  double r = regime_rate (rx, &w, r_prev, now);
  rx->was_lossy = w.lossy;
  return random ? random_loss_cap (rx, v, r, r_prev) : r;
}

static double
regime_rate (amcc_asmp_receiver *rx, const interval_view *v, double r_prev, amcc_time now)
{
  const amcc_asmp_params *p = &rx->p;
  double P = amcc_asmp_packet_size (p, rx->mean_pkt);
  int standing = v->q > p->queue_target_s;
  /* How long the queue has stood (or stood until the interval before: losses are found 3
   * packets late). A loss event counts toward COMPETING only after the queue stood
   * compete_after_s / 2: a loss-based flow fills the queue until it overflows, while alone
   * a loss comes from a key-frame burst (no standing queue) or from our own overshoot, which
   * draining removes within about a second. */
  int queue_up = v->q > p->queue_hold_s && p->queue_hold_s > 0;
  double stood = 0;
  if (standing) {
    if (rx->queue_since == AMCC_TIME_NONE)
      rx->queue_since = now - amcc_time_from_s (v->secs);
    stood = amcc_time_to_s (now - rx->queue_since);
  } else if (rx->queue_since != AMCC_TIME_NONE) {
    stood = amcc_time_to_s (now - amcc_time_from_s (v->secs) - rx->queue_since);
    rx->queue_since = AMCC_TIME_NONE;
  }
  /* Losses that go on while we back off are not ours: alone, a burst loss stops once we are
   * 10 % below the rate it came at (the knee); next to Reno flows in a short buffer (fairness-l2:
   * 55 ms, ten flows) the least queueing delay stays under queue_target_s, and without this rule
   * every loss cut the rate until it starved (14 % of the share). The knee here (knee2_Bps) is
   * the highest rate a loss came at within compete_hold_s: against the last loss alone, losses
   * creeping down 7 % at a time never counted (ns-3 fairness-l2, seed 3: 8 % of the share).
   * With the path drained (least queueing delay <= queue_hold_s) a loss is a burst of ours
   * overflowing an empty queue, and the rates are means over two reports (recv2): one 0.5 s
   * interval holds a key frame or none, and x264's output per interval swings 15-30 % (the
   * lone receiver of net-asmp-elements found a loss 10 % below a one-interval knee on such a
   * swing and went COMPETING); over a queue that stands, as loss-based flows keep it, one
   * interval's rate (two-report means there let ns-3 fairness-l1 seed 3 starve at 21 %). */
  double recv2 = rx->prev_recv > 0 && v->recv > 0 && !queue_up
      ? 0.5 * (v->recv + rx->prev_recv) : v->recv;
  rx->prev_recv = v->recv;
  /* ... while backing off: once the rate has risen, loss-free, by more than one backoff over
   * its lowest since the last loss, a loss is a new burst of ours, wherever the encoder's
   * picture puts it (the lone receiver of net-faults climbed back 25 % over 8 s after its
   * start-up losses, lost at 0.86 x their knee, and went COMPETING). A spiral into starvation
   * needs losses that come before the rate recovers what they took. */
  int recovered = rx->low_Bps > 0 && r_prev > (1.0 + p->delay_backoff) * rx->low_Bps;
  rx->low_Bps = v->lossy ? 0 : rx->low_Bps > 0 ? fmin (rx->low_Bps, r_prev) : r_prev;
  int below_knee = v->lossy && p->knee_loss_frac > 0 && rx->knee2_Bps > 0 && v->recv > 0
      && recv2 < p->knee_loss_frac * rx->knee2_Bps && !recovered
      && amcc_time_to_s (now - rx->knee2_at) <= p->compete_hold_s;
  /* Whose queue is it? Alone, the bottleneck gives us its capacity while the queue stands, and
   * once we send below that the queue drains at the difference; another flow's queue does not.
   * Measured on the send times of what arrived, so it does not matter when the encoder takes a
   * new rate (x264 follows a per-GOP target over seconds: the timing rules below mistook our
   * own queue for a competitor's in the demo). Without send times: the timing rules. */
  if (standing || stood > 0) {
    rx->queue_cap_Bps = fmax (rx->queue_cap_Bps, v->recv);
    rx->queue_cap_at = now;
  }
  int measured = p->foreign_margin > 0 && v->send > 0 && rx->queue_cap_Bps > 0;
  double below = measured ? 1.0 - v->send / rx->queue_cap_Bps : 0;
  int below_cap = measured && below > p->foreign_margin;
  int kept = below_cap && rx->prev_q - v->q < 0.5 * below * v->secs;
  /* a loss counts while the queue stands and does not drain as ours would: losses are found a
   * few packets late, so one found as our own queue drains is still ours (the lone receiver of
   * net-asmp-elements went COMPETING on such pairs in 1 of 3 runs) */
  int queued_loss = v->lossy && ((measured ? standing && kept : stood >= p->compete_after_s / 2)
      || below_knee || rx->mode == AMCC_ASMP_COMPETING);
  /* evidence of a loss-based competitor: a queue that does not drain although we feed it less
   * than it gives us (measured; less than half of what that would drain, two reports in a
   * row), or (timing) that
   * outlived compete_after_s of our draining and still grows; in COMPETING it keeps the regime:
   * while we hold our share the competitor's queue stands */
  int grows = stood >= p->compete_after_s && v->q >= rx->prev_q;
  rx->kept_run = standing && kept ? rx->kept_run + 1 : 0;
  /* two reports in a row: one interval's rates are noisy (0.3-0.6 s in the demo) */
  int held = standing && (measured ? rx->kept_run >= 2 : grows);
  if (rx->mode == AMCC_ASMP_COMPETING && standing && grows)
    held = 1;
  /* a Reno flow drains its queue at each halving (every 4-5 s in dumbbell-tcp): forgotten at
   * once, the next episode measured the bottleneck at the rate we had been drained to, which is
   * never 10 % above what we send, and a receiver in DELAY drained itself to 3 % of its share
   * live (its losses too few to count) */
  if (!standing && (p->queue_cap_hold_s <= 0
      || amcc_time_to_s (now - rx->queue_cap_at) > p->queue_cap_hold_s))
    rx->queue_cap_Bps = 0;
  if (held)
    rx->evidence_at = now;
  rx->prev_q = v->q;
  rx->drained_run = !standing && v->q >= 0 && v->q < p->queue_target_s / 2 && !v->lossy
      ? rx->drained_run + 1 : 0;
  if (queued_loss) {
    rx->event_at[1] = rx->event_at[0];
    rx->event_at[0] = now;
    rx->evidence_at = now;
  }
  if (rx->mode == AMCC_ASMP_STARTUP) {
    if (!v->lossy && !standing && !queue_up) {   /* x startup_gain/s; recv over < 0.2 s: no rate */
      double g = 1.0 + (p->startup_gain - 1.0) * fmin (1.0, v->secs);
      return v->any && v->recv > 0 && v->secs >= 0.2 ? fmax (r_prev, fmin (r_prev, v->recv) * g) : r_prev;
    }
    rx->mode = AMCC_ASMP_DELAY;
  }
  /* back to DELAY after compete_hold_s without evidence, or when the queue stayed drained
   * (below queue_target_s / 2, no loss) for 3 reports: a Reno flow's queue drains after its
   * halving for about one report (dumbbell-tcp), a queue that was ours stays empty */
  if (rx->mode == AMCC_ASMP_COMPETING && (rx->drained_run >= 3
      || amcc_time_to_s (now - rx->evidence_at) > p->compete_hold_s)) {
    rx->mode = AMCC_ASMP_DELAY;
    rx->knee_Bps = rx->knee2_Bps = rx->hold_Bps = 0;
    /* DELAY starts from what arrives: a COMPETING rate the encoder has not reached yet would
     * be kept (DELAY rises from r_prev, recv_rate_step only stops the rise) and spent later */
    if (p->delay_rise > 0 && v->recv > 0)
      r_prev = fmin (r_prev, v->recv * (1.0 + p->delay_rise));
  }
  if (rx->mode == AMCC_ASMP_DELAY) {
    if (!held && !(queued_loss && second_event_within (rx, now, p->compete_hold_s))) {
      if (standing)
        return v->recv > 0 ? fmin (r_prev, rate_drain (p, v->recv, v->q)) : r_prev;
      /* a queue starts to stand: we reached the bottleneck, whose rate is what arrives; rising
       * now would overflow a short buffer before the encoder takes a drained rate */
      double r = rate_delay (rx, v, recv2, v->q >= 0 && !queue_up, r_prev, now);
      return queue_up && v->recv > 0 ? fmin (r, fmin (r_prev, v->recv)) : r;
    }
    rx->mode = AMCC_ASMP_COMPETING;
  }
  double step = fmax (P / v->rtt, p->step_frac * r_prev);
  return amcc_asmp_rate_equations (rx, v, r_prev, P, step, p->gamma_unloaded, now);
}
