/* avmrc.h - AVMRC (Mahanti, Eager, Vernon: "Improving multirate congestion control using a TCP
 * Vegas throughput model", papers/003; restated in ../shared/spec/avmrc.md) and its two
 * baselines RMRC (Reno/PFTK model) and VMRC (static Vegas thresholds), as parameters of one
 * receiver-driven layered controller.
 *
 * The server sends C cumulative layers, each on its own group, and never hears from receivers.
 * It stamps every packet with its send time, the time-slot number and whether the slot is an
 * "add" slot (every n_add-th: weak synchronisation) - amcc_avmrc_clock_at and the header
 * extension amcc_avmrc_stamp (docs/wire-formats.md "AVMRC"). Each receiver measures one-way delay
 * (TSD) and loss over the layers it takes and, once per slot (when the first packet of a new
 * slot arrives), updates its averages and thresholds and decides its subscription level.
 *
 * Every departure from the paper is a field of amcc_avmrc_params whose literal value gives the
 * paper (lib/cc/README.md "AVMRC"). Nothing here reads a clock. */
#ifndef AMCC_AVMRC_H
#define AMCC_AVMRC_H
#include <stddef.h>
#include <stdint.h>
#include "amcc.h"
#include "loss.h"
#include "seq.h"
#ifdef __cplusplus
extern "C" {
#endif

#define AMCC_AVMRC_MAX_LAYERS 16
#define AMCC_AVMRC_PAPER_LAYERS 9          /* papers/003 4.2 */
#define AMCC_AVMRC_PAPER_B1_BPS 256e3      /* B_1 = 256 kb/s */
#define AMCC_AVMRC_PAPER_FACTOR 1.5        /* B_i = 1.5 B_(i-1) */

typedef enum amcc_avmrc_model {
  AMCC_AVMRC_VEGAS_ADAPTIVE = 0,   /* AVMRC: eq. 2-3 with alpha = beta adapted (3.1) */
  AMCC_AVMRC_VEGAS_STATIC = 1,     /* VMRC: eq. 2-3 with alpha = beta = static_beta */
  AMCC_AVMRC_RENO = 2              /* RMRC: eq. 1 (PFTK), seeded loss history (4.1) */
} amcc_avmrc_model;

typedef struct amcc_avmrc_params {
  amcc_avmrc_model model;
  amcc_time tau;              /* slot duration, 0.1 s (table 1) */
  uint32_t n_add;             /* slots between additions, 20 */
  uint32_t n_drop;            /* "recent add" window of the quick-drop rule, 20 */
  uint32_t n_startup;         /* start-up phase: additions in any slot, 50 */
  double gamma1, gamma2;      /* add / drop hysteresis, 0.5 / 0.5 */
  double r_s;                 /* aggressiveness constant R: RTT := delta + R, 0.1 s */
  double to_rtts;             /* TO = 4 RTT */
  double static_beta;         /* VMRC's alpha = beta (the paper: 6 or 30) */
  double tsd_st_new;          /* short-term TSD EWMA weight of a new sample, 0.25 */
  double tsd_lt_new;          /* long-term TSD EWMA weight of the short-term value, 0.05 */
  double slowstart_frac;      /* slow start goes on while B_recp >= 0.95 B_curr */
  double nominal_bytes;       /* packet size before any packet was measured, 1000 (1 KB) */
  /* Deviation: slow start compares a slot's reception with the subscription this many slots
   * before its start. 0 = the paper's B_curr (the subscription now). A join takes effect when
   * the receiver sees the first packet of a slot, when the rest of that slot's burst is already
   * past the router: the slot after a join still carries the old subscription. Default 1. */
  uint32_t ss_expect_lag;
  /* Deviation: the first slot after joining (partly received) does not end slow start. 0 = the
   * paper (every slot tested). Default 1. */
  uint32_t ss_grace_slots;
  /* Deviation: after slow start, the first add_recp_check slots that carry packets of an added
   * layer must show the layers held before it still arriving at add_recp_frac of their rate
   * (3.4's test, B_recp >= frac B_curr, on those layers: a shortfall is the queue growing
   * under the new load), else the layer is dropped at once. 0 = the paper (only 3.3's drop rule
   * judges an addition). With bursts every tau, one burst of too many layers raises delta too
   * little for 3.3's quick drop; the next burst is then already at the router, and a third
   * overflows it (lib/cc/README.md "AVMRC"). Default 2. */
  uint32_t add_recp_check;
  /* Deviation: that fraction (slow start's 0.95 fails next to a Reno flow, whose growing queue
   * stretches every slot a little). Default 0.8. */
  double add_recp_frac;
} amcc_avmrc_params;

/* The paper's AVMRC (table 1; deviations at their defaults above). */
void amcc_avmrc_params_init (amcc_avmrc_params *p);
/* RMRC: the same with model = AMCC_AVMRC_RENO. */
void amcc_rmrc_params_init (amcc_avmrc_params *p);
/* VMRC with static alpha = beta = beta (6 or 30 in the paper). */
void amcc_vmrc_params_init (amcc_avmrc_params *p, double beta);

/* Cumulative rates B_1..B_n into cum_bps[0..n-1]: B_1 = b1_bps, B_i = factor B_(i-1) (4.2).
 * AMCC_ERR_PARAM on n = 0, n > AMCC_AVMRC_MAX_LAYERS, b1 <= 0 or factor <= 1. */
int amcc_avmrc_layer_rates (double *cum_bps, uint32_t n, double b1_bps, double factor);

/* ---- the sender's slot clock (3.3: weak synchronisation) ---- */
typedef struct amcc_avmrc_clock {
  amcc_time start, tau;
  uint32_t n_add;
} amcc_avmrc_clock;
void amcc_avmrc_clock_init (amcc_avmrc_clock *c, amcc_time start, const amcc_avmrc_params *p);
/* The slot `now` falls in (slots before start count as slot 0) and whether it is an add slot
 * (slot % n_add == 0). */
uint32_t amcc_avmrc_clock_at (const amcc_avmrc_clock *c, amcc_time now, int *flagged);

/* ---- the per-packet stamp: an RTP header-extension payload (docs/wire-formats.md) ---- */
#define AMCC_AVMRC_WIRE_VERSION 1
#define AMCC_AVMRC_STAMP_LEN 16          /* fits RFC 8285's one-byte form (at most 16) */
typedef struct amcc_avmrc_stamp {
  amcc_time send_time;        /* sender's clock, ns, >= 0 */
  uint32_t slot;
  int flagged;                /* an add slot */
  uint32_t layer;             /* 0 = base layer, < AMCC_AVMRC_MAX_LAYERS */
} amcc_avmrc_stamp;
/* Bytes written (AMCC_AVMRC_STAMP_LEN) or AMCC_ERR_PARAM / AMCC_ERR_NOSPACE. */
int amcc_avmrc_stamp_encode (const amcc_avmrc_stamp *in, uint8_t *buf, size_t cap);
/* AMCC_OK, or TRUNCATED (short), FIELD (long, reserved bits, layer, time), VERSION. */
int amcc_avmrc_stamp_decode (amcc_avmrc_stamp *out, const uint8_t *buf, size_t len);

/* ---- the receiver ---- */
typedef struct amcc_avmrc_layer {
  amcc_seq seq;               /* this layer's RTP session: its own sequence space */
  amcc_loss_events ev;        /* used to declare packets lost (3 later arrivals) */
  uint64_t lost_seen;         /* ev.lost already counted */
} amcc_avmrc_layer;

typedef enum amcc_avmrc_phase {
  AMCC_AVMRC_SLOW_START = 0,  /* 3.4: one layer per slot */
  AMCC_AVMRC_STARTUP = 1,     /* first n_startup slots: additions in any slot */
  AMCC_AVMRC_STEADY = 2
} amcc_avmrc_phase;

typedef struct amcc_avmrc_rx {
  amcc_avmrc_params p;
  uint32_t layers;                      /* C */
  double rate[AMCC_AVMRC_MAX_LAYERS + 1];  /* rate[i] = B_i, rate[0] = 0 */
  uint32_t level;                       /* subscribed to layers 1..level */
  amcc_avmrc_layer lay[AMCC_AVMRC_MAX_LAYERS];
  /* delay (3.2), seconds */
  int have_tsd;
  double tsd_st, tsd_lt, tsd_min;
  /* loss events (3.2) over all layers taken */
  amcc_loss_history hist;
  int have_loss;                        /* a loss event seen (or RMRC's seeded history) */
  int seeded;                           /* RMRC: the history holds the seed */
  amcc_time event_start;                /* first loss of the current event, NONE = none */
  double since_loss;                    /* packets since the last loss: s_0 */
  double since_join;                    /* packets since joining */
  uint64_t events, lost;
  int loss_in_slot;
  /* slots */
  int have_slot;
  uint32_t slot, join_slot, last_add_slot;
  int add_since_drop;                   /* an addition with no drop since */
  amcc_time slot_start;                 /* arrival of the slot's first packet */
  double slot_bytes;
  double slot_bytes_held;               /* of the layers below the top one */
  int add_seen;                         /* a packet of the last added layer arrived */
  uint32_t add_seen_slot;               /* in this slot */
  double b_held;                        /* bit/s of the layers below the top, last slot */
  uint32_t lvl_hist[4];                 /* level at the last boundaries, [0] = newest */
  double b_recp;                        /* bit/s over the last slot */
  amcc_avmrc_phase phase;
  double beta;
  double pkt_bytes;                     /* mean packet size (EWMA 1/16) */
  /* the last slot's model values */
  double delta_st, delta_lt, p_st, p_lt;
  double lambda_st, lambda_lt;          /* bit/s */
  uint64_t adds, drops, packets, unstamped;
} amcc_avmrc_rx;

/* cum_bps: B_1..B_n increasing (NULL: the paper's 9 layers). AMCC_ERR_PARAM when invalid. */
int amcc_avmrc_rx_init (amcc_avmrc_rx *r, const amcc_avmrc_params *p, const double *cum_bps,
    uint32_t n);
/* One packet of `layer` (0-based). stamp == NULL: no header extension (counted; no slot
 * progress, no delay sample). Returns 1 when a slot ended and the step ran, else 0. */
int amcc_avmrc_rx_on_packet (amcc_avmrc_rx *r, amcc_time now, uint32_t layer, uint16_t seq,
    uint32_t bytes, const amcc_avmrc_stamp *stamp);
uint32_t amcc_avmrc_rx_level (const amcc_avmrc_rx *r);

/* the equations, each on its own (exported for the tests) */
/* 3.2: EWMA, new = w x sample + (1 - w) x old */
double amcc_avmrc_ewma (double old, double sample, double w_new);
/* 3.2: RTT := delta + R */
double amcc_avmrc_rtt (double delta_s, double r_s);
/* 3.2: p_st = 1 / s_0 (1 when s_0 = 0) */
double amcc_avmrc_p_st (double s0);
/* eq. 2-3 (Vegas, alpha = beta) or eq. 1 (PFTK) in bit/s; p <= 0 = no loss seen (eq. 2; the
 * Reno model then has no limit). */
double amcc_avmrc_model_bps (amcc_avmrc_model m, double p, double delta_s, double beta,
    double r_s, double to_rtts, double pkt_bytes);
/* 3.3 add: min(L_st, L_lt) >= B_(i+1) + gamma1 (B_(i+1) - B_i) */
int amcc_avmrc_should_add (double l_st, double l_lt, double b_i, double b_next, double gamma1);
/* 3.3 drop: (recent add ? min : max)(L_st, L_lt) < B_i - gamma2 (B_i - B_(i-1)) */
int amcc_avmrc_should_drop (double l_st, double l_lt, double b_prev, double b_i, double gamma2,
    int recent_add);
/* 3.4: slow start goes on while B_recp >= frac B_curr */
int amcc_avmrc_slowstart_ok (double b_recp, double b_curr, double frac);

#ifdef __cplusplus
}
#endif
#endif
