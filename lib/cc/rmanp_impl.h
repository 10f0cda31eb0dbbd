/* rmanp_impl.h - what RMANP's source and relay share (rmanp.c): the table of children whose
 * cumulative ACKs are aggregated, with the exclusion of those below Rm. Not installed. */
#ifndef AMCC_RMANP_IMPL_H
#define AMCC_RMANP_IMPL_H
#include "amcc/rmanp.h"

struct rmanp_child {
  uint32_t node, cum;           /* its id; every packet below cum ACKed */
  int excluded;
  uint32_t win_cum;             /* cum when the exclusion window began */
};

/* Fixed capacity (params.max_children), allocated by the owner. One exclusion window for all. */
struct rmanp_children {
  struct rmanp_child *c;
  uint32_t cap, n, excluded;
  amcc_time win_start;
};

/* The child `node` (added if there is room: NULL when full). */
struct rmanp_child *rmanp_children_get (struct rmanp_children *t, uint32_t node, amcc_time now);
/* The lowest cum over children still in the session; 0 = none. */
int rmanp_children_min (const struct rmanp_children *t, uint32_t *min);
/* When the exclusion window ends, AMCC_TIME_NONE without children. */
amcc_time rmanp_children_due (const struct rmanp_children *t, const struct amcc_rmanp_params *p);
/* At the end of each exclude_window: excludes the children that ACKed less than
 * exclude_fraction x Rm over it while at least Rm had been sent (next = the next seq to send)
 * and another child ACKed exclude_fraction x Rm more (the session was not what held it back);
 * returns how many it excluded. */
uint32_t rmanp_children_check (struct rmanp_children *t, const struct amcc_rmanp_params *p,
    amcc_time now, uint32_t next);
/* A control packet for the parent. */
int rmanp_encode_ctl (uint8_t type, uint32_t node, uint32_t seq, uint32_t value, uint8_t *buf,
    size_t cap);
/* A rate as it goes on the wire: bit/s rounded, at least 1. */
uint32_t rmanp_wire_rate (double bps);
/* AMCC_OK, or AMCC_ERR_FIELD for a data payload longer than this node's packets hold (a
 * sender with a larger packet_bytes): rejected before it is copied into a slot. */
int rmanp_fits (const struct amcc_rmanp_params *p, const struct amcc_rmanp_pkt *k);
#endif
