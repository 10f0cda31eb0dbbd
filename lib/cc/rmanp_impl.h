/* rmanp_impl.h - what RMANP's source and relay share (rmanp.c): the table of children whose
 * cumulative ACKs are aggregated, with the exclusion of those below Rm. Not installed. */
#ifndef AMCC_RMANP_IMPL_H
#define AMCC_RMANP_IMPL_H
#include "amcc/rmanp.h"

struct rmanp_child {
  uint32_t node, cum;           /* its id; every packet below cum ACKed */
  int excluded;
  amcc_time win_start;          /* the exclusion window: start, cum and our highest seq then */
  uint32_t win_cum;
};

/* Fixed capacity (params.max_children), allocated by the owner. */
struct rmanp_children {
  struct rmanp_child *c;
  uint32_t cap, n, excluded;
};

/* The child `node` (added if there is room: NULL when full). */
struct rmanp_child *rmanp_children_get (struct rmanp_children *t, uint32_t node, amcc_time now);
/* The lowest cum over children still in the session; 0 = none. */
int rmanp_children_min (const struct rmanp_children *t, uint32_t *min);
/* Excludes the children that ACKed less than exclude_fraction x Rm over a full exclude_window
 * while that much had been sent (next = the next seq to send); returns how many it excluded. */
uint32_t rmanp_children_check (struct rmanp_children *t, const struct amcc_rmanp_params *p,
    amcc_time now, uint32_t next);
/* A control packet for the parent. */
int rmanp_encode_ctl (uint8_t type, uint32_t node, uint32_t seq, uint32_t value, uint8_t *buf,
    size_t cap);
/* A rate as it goes on the wire: bit/s rounded, at least 1. */
uint32_t rmanp_wire_rate (double bps);
#endif
