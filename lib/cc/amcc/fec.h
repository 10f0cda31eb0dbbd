/* amcc/fec.h - how much forward error correction for the loss the receivers report: chooses a
 * SMPTE 2022-1 (RFC 2733 XOR parity) matrix of L columns x D rows so that the loss left after
 * recovery stays below a target, at the least overhead. Row FEC: one parity packet per L
 * consecutive media packets; column FEC: one per column of D packets (L x D apart). Pure
 * function of its inputs; the element applies the result (gst/asmpsink). */
#ifndef AMCC_FEC_H
#define AMCC_FEC_H
#include <stdint.h>
#include "amcc/amcc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amcc_fec_params {
  /* residual loss target, as a mean time between unrecovered packet losses (s): the target
   * rate is 1 / (packet rate x this). 30 s: a 45 s demo loses about one packet per receiver */
  double residual_interval_s;
  /* a matrix is usable when its last parity packet follows its first media packet by at most
   * this (s): the receiver's jitter buffer must still hold the packet when it is rebuilt */
  double max_delay_s;
  uint32_t min_columns, max_columns;   /* L: SMPTE 2022-1 allows 1..20 */
  uint32_t min_rows, max_rows;         /* D: SMPTE 2022-1 allows 4..20 */
  uint32_t max_cells;                  /* L x D: SMPTE 2022-1 allows 100 */
  /* parity packets per media packet never above this (0.5: a third of the bytes); when no
   * matrix within it reaches the target, the one with the least residual */
  double max_parity;
  /* hysteresis (amcc_fec_update): the matrix in force stays while it still meets the target and
   * costs at most this x the overhead of the best one (1.0: always the best; each change costs
   * the parity of the matrix in progress and an encoder cycle) */
  double keep_ratio;
} amcc_fec_params;

typedef struct amcc_fec_choice {
  uint32_t columns, rows;     /* L, D; 0 columns = no FEC; 0 rows = row FEC only */
  double overhead;            /* FEC share of the bytes sent: r / (1 + r), r = parity per media */
  double residual;            /* modelled loss rate after recovery */
  double target;              /* the residual target for this packet rate */
  int meets_target;
} amcc_fec_choice;

void amcc_fec_params_default (amcc_fec_params *p);
/* Parity packets per media packet of an L x D matrix: 1/L (+ 1/D with column FEC). */
double amcc_fec_parity_ratio (uint32_t columns, uint32_t rows);
/* Loss left after recovery, independent loss rate p. Row FEC: a packet stays lost when one of
 * the L others of its row (L - 1 media + 1 parity) is lost too: p (1 - (1-p)^L). With column
 * FEC it must also fail in its column, D others: x (1 - (1-p)^D); no iterative decoding is
 * counted (an upper bound). */
double amcc_fec_residual (double p, uint32_t columns, uint32_t rows);
/* The choice for the worst reported loss rate (0..1) at pps media packets/s. Loss at or below
 * the target, or no loss: columns = 0 (no FEC). AMCC_ERR_PARAM on bad parameters or input. */
int amcc_fec_choose (const amcc_fec_params *prm, double loss, double pps, amcc_fec_choice *out);
/* As amcc_fec_choose, but keeps `current` (the matrix in force; columns 0 = none) while it
 * still fits the limits and meets the target and its overhead is at most keep_ratio x the
 * best's. Loss at or below the target (none at all included): no FEC, at once. */
int amcc_fec_update (const amcc_fec_params *prm, double loss, double pps,
    const amcc_fec_choice *current, amcc_fec_choice *out);
/* "The loss's need": the share of the bytes row FEC with a real-valued L would take to bring
 * loss (0..1) to the target at pps, with no delay bound: p (1 - (1-p)^L) = target, overhead
 * (1/L) / (1 + 1/L). 0 when the loss is at or below the target; at L < 1 (row FEC cannot reach
 * the target) that of L = 1, 0.5. NaN on bad parameters or input. A 2D matrix can cost less. */
double amcc_fec_need (const amcc_fec_params *prm, double loss, double pps);
/* FEC's share of the target while an L x D matrix is in force (0 columns: none, 0): its modelled
 * share r / (1 + r), or the share of the bytes parity actually took (amcc_fec_byte_share) when
 * larger: a parity packet is as long as the longest packet it covers, so parity's share of the
 * bytes can exceed its share of the packets. byte_share outside [0, 1] counts as 0. */
double amcc_fec_target_share (uint32_t columns, uint32_t rows, double byte_share);
/* Parity's share of the bytes sent over an interval (0 when nothing was sent). */
double amcc_fec_byte_share (uint64_t parity_bytes, uint64_t media_bytes);
/* What the media may use of a target when FEC takes `share` of it: target x (1 - share), never
 * below 1 bit/s (the encoder and the pacer take 0 as "no limit"); share outside [0, 1]: 0. */
uint32_t amcc_fec_media_rate (uint32_t target_bps, double share);

#ifdef __cplusplus
}
#endif
#endif
