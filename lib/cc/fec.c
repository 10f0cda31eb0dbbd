/* fec.c - FEC overhead from the reported loss (amcc/fec.h). An exhaustive search over the
 * SMPTE 2022-1 matrices (at most 20 x 20) per key frame: a few hundred evaluations. */
#include <math.h>
#include "amcc/fec.h"

void
amcc_fec_params_default (amcc_fec_params *p)
{
  p->residual_interval_s = 30.0;
  p->max_delay_s = 0.15;
  p->min_columns = 1;
  p->max_columns = 20;
  p->min_rows = 4;
  p->max_rows = 20;
  p->max_cells = 100;
  p->max_parity = 0.5;
  p->keep_ratio = 1.5;
}

double
amcc_fec_parity_ratio (uint32_t columns, uint32_t rows)
{
  if (columns == 0)
    return 0.0;
  return 1.0 / columns + (rows ? 1.0 / rows : 0.0);
}

/* P(at least one of n independent packets lost) */
static double
any_lost (double p, uint32_t n)
{
  return 1.0 - pow (1.0 - p, (double) n);
}

double
amcc_fec_residual (double p, uint32_t columns, uint32_t rows)
{
  double r;

  if (columns == 0)
    return p;
  r = p * any_lost (p, columns);
  return rows ? r * any_lost (p, rows) : r;
}

/* FEC share of all bytes (parity packets as large as media ones) */
static double
overhead_of (uint32_t columns, uint32_t rows)
{
  double r = amcc_fec_parity_ratio (columns, rows);
  return r / (1.0 + r);
}

/* the span from a matrix's first media packet to its last parity packet, in packets */
static uint32_t
span_packets (uint32_t columns, uint32_t rows)
{
  return rows ? columns * rows : columns;
}

static int
params_ok (const amcc_fec_params *p)
{
  return p && p->residual_interval_s > 0 && p->max_delay_s > 0 && p->min_columns >= 1
      && p->min_columns <= p->max_columns && p->min_rows >= 1 && p->min_rows <= p->max_rows
      && p->max_parity > 0 && p->keep_ratio >= 1.0;
}

/* the residual loss target at pps media packets/s: one unrecovered packet per
 * residual_interval_s (1 with no packets: nothing to protect) */
static double
residual_target (const amcc_fec_params *p, double pps)
{
  return pps > 0 ? 1.0 / (pps * p->residual_interval_s) : 1.0;
}

/* better = reaches the target at less overhead; without a target, less residual */
static int
better (const amcc_fec_choice *a, const amcc_fec_choice *b)
{
  if (a->meets_target != b->meets_target)
    return a->meets_target;
  if (a->meets_target)
    return a->overhead < b->overhead
        || (a->overhead == b->overhead && a->residual < b->residual);
  return a->residual < b->residual
      || (a->residual == b->residual && a->overhead < b->overhead);
}

static void
consider (const amcc_fec_params *prm, double p, double pps, uint32_t l, uint32_t d,
    amcc_fec_choice *best)
{
  amcc_fec_choice c;

  if (span_packets (l, d) > prm->max_delay_s * pps || (d && l * d > prm->max_cells)
      || amcc_fec_parity_ratio (l, d) > prm->max_parity * (1 + 1e-9))
    return;
  c.columns = l;
  c.rows = d;
  c.overhead = overhead_of (l, d);
  c.residual = amcc_fec_residual (p, l, d);
  c.target = best->target;
  c.meets_target = c.residual <= c.target;
  if (better (&c, best))
    *best = c;
}

int
amcc_fec_choose (const amcc_fec_params *prm, double loss, double pps, amcc_fec_choice *out)
{
  uint32_t l, d;

  if (!params_ok (prm) || !out || !(loss >= 0 && loss <= 1) || !(pps >= 0) || !isfinite (pps))
    return AMCC_ERR_PARAM;
  out->columns = 0;
  out->rows = 0;
  out->overhead = 0.0;
  out->residual = loss;
  out->target = residual_target (prm, pps);
  out->meets_target = loss <= out->target;
  if (out->meets_target)
    return AMCC_OK;             /* no loss, or less than the target: FEC buys nothing */
  for (l = prm->min_columns; l <= prm->max_columns; l++) {
    consider (prm, loss, pps, l, 0, out);
    for (d = prm->min_rows; d <= prm->max_rows; d++)
      consider (prm, loss, pps, l, d, out);
  }
  return AMCC_OK;
}

int
amcc_fec_update (const amcc_fec_params *prm, double loss, double pps,
    const amcc_fec_choice *current, amcc_fec_choice *out)
{
  amcc_fec_choice keep = { 0 };
  int ret = amcc_fec_choose (prm, loss, pps, out);

  if (ret != AMCC_OK || !current || current->columns == 0 || loss <= 0)
    return ret;
  keep.columns = current->columns;
  keep.rows = current->rows;
  keep.target = out->target;
  keep.overhead = overhead_of (keep.columns, keep.rows);
  keep.residual = amcc_fec_residual (loss, keep.columns, keep.rows);
  keep.meets_target = keep.residual <= keep.target;
  if (keep.meets_target && span_packets (keep.columns, keep.rows) <= prm->max_delay_s * pps
      && (!keep.rows || keep.columns * keep.rows <= prm->max_cells)
      && amcc_fec_parity_ratio (keep.columns, keep.rows) <= prm->max_parity * (1 + 1e-9)
      && keep.overhead <= prm->keep_ratio * out->overhead * (1 + 1e-9))
    *out = keep;
  return AMCC_OK;
}

double
amcc_fec_need (const amcc_fec_params *prm, double loss, double pps)
{
  double target, l;

  if (!params_ok (prm) || !(loss >= 0 && loss <= 1) || !(pps >= 0) || !isfinite (pps))
    return NAN;
  target = residual_target (prm, pps);
  if (loss <= target)
    return 0.0;
  l = loss < 1 ? log (1.0 - target / loss) / log (1.0 - loss) : 0.0;
  if (!(l >= 1.0))
    l = 1.0;
  return (1.0 / l) / (1.0 + 1.0 / l);
}

double
amcc_fec_target_share (uint32_t columns, uint32_t rows, double byte_share)
{
  double modelled;

  if (columns == 0)
    return 0.0;
  modelled = overhead_of (columns, rows);
  if (!(byte_share > modelled && byte_share <= 1.0))
    return modelled;            /* NaN and out of range included */
  return byte_share;
}

double
amcc_fec_byte_share (uint64_t parity_bytes, uint64_t media_bytes)
{
  double p = (double) parity_bytes, m = (double) media_bytes;

  return p + m > 0 ? p / (p + m) : 0.0;
}

uint32_t
amcc_fec_media_rate (uint32_t target_bps, double share)
{
  double media;

  if (!(share >= 0.0 && share <= 1.0))
    share = 0.0;
  media = target_bps * (1.0 - share);
  return media >= 1.0 ? (uint32_t) media : 1;
}
