/* assp.h - ASSP, the Adaptive Smooth Simulcast Protocol (spec/assp.md, papers/001): the same
 * content as K streams on K groups, one ASMP controller per stream within the stream's limits,
 * and a receiver that moves to the highest stream its own TCP-friendly share supports.
 *
 * Sender, per stream j: eq. 2 is ASMP's minimum over the stream's receivers clamped to
 * [low_j, high_j] (amcc_sender_set_limits); eq. 3 averages it over fixed windows of delta_t; the
 * SR's APP carries every stream's average and limits and, on the first SR of each window, the
 * join flag J that makes all receivers decide at the same time.
 * Receiver: eq. 6 smooths its ASMP estimate; on J it applies eq. 4-5 to that average.
 * Functions of time and numbers only; the controller adapter (assp_controller.c) wires them. */
#ifndef AMCC_ASSP_H
#define AMCC_ASSP_H
#include <stddef.h>
#include <stdint.h>
#include "amcc.h"
#ifdef __cplusplus
extern "C" {
#endif

#define AMCC_ASSP_MAX_STREAMS 8

typedef struct amcc_assp_params {
  double beta;                /* eq. 4: up only if avg_rx > beta x avg_tx of the next stream (0.7) */
  double lambda;              /* eq. 4: ... and avg_rx > lambda x its lower limit (1.2) */
  double kappa;               /* eq. 5: down if avg_rx < kappa x the current lower limit (0.8) */
  double a;                   /* eq. 6: EWMA weight of the newest estimate (0.3) */
  amcc_time delta_t;          /* eq. 3 window and decision period (5 s) */
  /* Deviation (up_hold, 0 = the paper): a receiver that comes back down within up_hold rounds
   * of moving up waits up_hold rounds before the next try, twice as long after each further
   * failure up to up_hold_max (RLM's join timer). A path between two streams' rates otherwise
   * moves up and down forever: the estimate on the lower stream grows without loss (eq. 13),
   * the higher stream loses. Longer holds mean fewer failed tries but a slower return after a
   * path recovers (at most up_hold_max rounds + one). (3 rounds, at most 12) */
  uint32_t up_hold, up_hold_max;
  /* Deviation (settle, 0 = the paper): after a move down, no further move down for this many
   * rounds. The round after a move down still measures the queue and the losses the higher
   * stream left (and the overlap of both while switching), so its share reads far below what
   * the lower stream gets. (1 round) */
  uint32_t settle;
  /* Deviation (lossy_down, 0 = the paper): also move down when the share is below the current
   * stream's lower limit and at least this fraction of the round's reports lost packets. kappa
   * < 1 keeps a receiver on a stream held at its lower limit while its share is above kappa x
   * that limit: overloaded by up to 25 %, losing packets all along. (0.5) */
  double lossy_down;
  /* Deviation (knee_hold, 0 = off: the share probe of assp_controller.c uncapped): for this
   * long after the receiver's path last pushed back (a report with loss or a standing queue),
   * probing does not raise the share above the rate that arrived then (the knee; raised by
   * clean reports that arrive faster). A path that looks clean below its capacity (the encoder
   * or a peer holds the stream under it) otherwise lets the probe climb past lambda x the next
   * lower limit: the receiver tries the next stream, congests, comes back. Longer holds mean
   * fewer tries on a path that never pushes back where it is, a later return after the path
   * improves while nothing measures it. (60 s) */
  amcc_time knee_hold;
  /* Deviation (floor_competing, 0 = off: ASMP's estimate as it is): while the stream is held
   * at its lower limit, ASMP asks for less and a queue stands, the share is at least eq. 12's
   * TCP-friendly rate (TCP's 1448-byte segment, ASMP's RTT and loss event rate). ASMP tells its
   * own queue from a competitor's by draining it; a sender at the floor cannot follow, so next
   * to Reno flows ASMP stays in DELAY below the floor for minutes and the receiver never leaves
   * stream 1 (papers/001 3.2-3.3 on the testbed). (1) */
  int floor_competing;
  /* Deviation (late_j, 0 = the paper: decide only on J): a receiver that did not hear a round's
   * J decides on the first table of that round it does hear (the round is the sender's window,
   * so it still decides with the others, one SR later). J travels on one SR per round over the
   * path being judged: at 40 % loss a receiver missed 3 rounds in a row and went down 23 s
   * after its path fell (net-assp-elements). (1) */
  int late_j;
} amcc_assp_params;

void amcc_assp_params_init (amcc_assp_params *p);
/* AMCC_ERR_PARAM unless beta, kappa in (0, 1], lambda >= 1, a in (0, 1], delta_t > 0,
 * up_hold <= up_hold_max, settle <= 16, lossy_down in [0, 1], knee_hold >= 0,
 * floor_competing and late_j 0 or 1. */
int amcc_assp_params_validate (const amcc_assp_params *p);

/* ---- eq. 3: time-weighted average of a stream's rate over windows [k dt, (k+1) dt) ---- */
typedef struct amcc_assp_avg {
  amcc_time at;               /* last sample, AMCC_TIME_NONE = none */
  amcc_time from;             /* start of the open window, or the first sample within it */
  double rate;                /* rate since then (a step function) */
  double area;                /* integral of the rate over the open window, bit */
  int64_t window;             /* index of the open window */
  int have;                   /* a window closed: avg is its mean */
  double avg;
} amcc_assp_avg;

void amcc_assp_avg_init (amcc_assp_avg *v);
/* The rate is `rate` from now on; returns 1 when a window closed (its mean is v->avg). */
int amcc_assp_avg_sample (amcc_assp_avg *v, amcc_time now, double rate, amcc_time dt);
/* The mean of the last closed window, or the current rate before one closed. */
double amcc_assp_avg_value (const amcc_assp_avg *v);

/* eq. 6: avg_rx = (1 - a) avg_rx + a rx_inst */
double amcc_assp_ewma (double avg, double inst, double a);

/* ---- the stream table the sender's SR carries ---- */
typedef struct amcc_assp_stream {
  double avg_bps;             /* eq. 3 average of the last window */
  double low_bps, high_bps;   /* the stream's limits */
} amcc_assp_stream;

typedef struct amcc_assp_table {
  uint32_t count;             /* streams, 1..AMCC_ASSP_MAX_STREAMS */
  uint32_t stream;            /* the stream of the session this table came on */
  int join;                   /* J: decide now */
  uint16_t round;             /* window index (mod 2^16): the same decision on every session */
  amcc_assp_stream s[AMCC_ASSP_MAX_STREAMS];
} amcc_assp_table;

/* eq. 4-5 with j the current stream: +1 up, -1 down, 0 stay. */
int amcc_assp_decide (const amcc_assp_params *p, double avg_rx, const amcc_assp_table *t,
    uint32_t j);

/* ---- receiver's switching rule: eq. 6 and eq. 4-5 on J, with the up_hold deviation ---- */
typedef struct amcc_assp_rule {
  amcc_assp_params p;
  int have_avg;
  double avg_rx;              /* eq. 6, bit/s */
  double ceiling;             /* estimates above lambda x the highest upper limit count as it */
  uint32_t stream, wanted;    /* current stream; the one it wants (== stream: no switch pending) */
  int have_round;
  uint16_t round;             /* last decision round seen */
  uint16_t up_round;          /* round of the last move up */
  int up_recent;              /* that move up is within up_hold rounds */
  uint32_t hold;              /* rounds to wait before the next move up (0: none) */
  uint16_t hold_until;
  uint32_t reports, lossy;    /* estimates since the last round, and how many lost packets */
  int down_recent;            /* a move down within `settle` rounds */
  uint16_t down_round;
  uint64_t ups, downs;
} amcc_assp_rule;

void amcc_assp_rule_init (amcc_assp_rule *r, const amcc_assp_params *p);
/* A new estimate of the receiver's TCP-friendly share (its ASMP report), bit/s: eq. 6; lossy:
 * packets were lost in the report's interval. */
void amcc_assp_rule_on_estimate (amcc_assp_rule *r, double rx_inst_bps, int lossy);
/* A stream table arrived: decides on a new J round. Returns the stream wanted now. */
uint32_t amcc_assp_rule_on_table (amcc_assp_rule *r, const amcc_assp_table *t);
/* The caller now receives `stream` (the switch is done, or it was forced). */
void amcc_assp_rule_set_stream (amcc_assp_rule *r, uint32_t stream);

/* Replaces the parameters of a receiver made by amcc_receiver_new with protocol "assp" (its
 * rule and share; the defaults otherwise). AMCC_ERR_PARAM for another protocol's receiver or
 * parameters that do not validate. */
struct amcc_receiver;
int amcc_assp_receiver_set_params (struct amcc_receiver *r, const amcc_assp_params *p);

/* ---- wire: APP "ASSP" subtype 1 = the table, then an ASMP echo payload (docs/wire-formats.md) */
#define AMCC_ASSP_APP_NAME "ASSP"
#define AMCC_ASSP_SUBTYPE_TABLE 1
#define AMCC_ASSP_WIRE_VERSION 1
#define AMCC_ASSP_TABLE_LEN(k) (8 + 12 * (size_t) (k))

/* Encodes the table (AMCC_ASSP_TABLE_LEN(t->count) bytes); rates are whole bit/s <= 2^32 - 1. */
int amcc_assp_table_encode (const amcc_assp_table *t, uint8_t *buf, size_t cap, size_t *written);
/* Decodes the table at the start of buf; *used = its length (the rest is the echo). Never reads
 * past len; rejects bad version, reserved bits, count 0 or > max, stream >= count, low > high. */
int amcc_assp_table_decode (const uint8_t *buf, size_t len, amcc_assp_table *t, size_t *used);

#ifdef __cplusplus
}
#endif
#endif
