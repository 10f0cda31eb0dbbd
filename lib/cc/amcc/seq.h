/* seq.h - RTP sequence tracking (RFC 3550 A.1, A.3) and interarrival jitter (RFC 3550 A.8,
 * ASMP eq. 4-5). Plain structs, caller-allocated; no time is read. */
#ifndef AMCC_SEQ_H
#define AMCC_SEQ_H
#include <stdint.h>
#include "amcc.h"
#ifdef __cplusplus
extern "C" {
#endif

#define AMCC_SEQ_MIN_SEQUENTIAL 2     /* RFC 3550 A.1 MIN_SEQUENTIAL (probation) */
/* Deviation from A.1: in probation a packet up to this many ahead of the last counts as
 * sequential. A receiver that joins a stream its path cannot carry (a simulcast receiver trying
 * the next stream) loses most packets: strictly sequential pairs may never come, and it would
 * measure nothing. Random junk still fails (1 = A.1 exactly). */
#define AMCC_SEQ_PROBATION_GAP 16
#define AMCC_SEQ_MAX_DROPOUT    3000  /* RFC 3550 A.1 MAX_DROPOUT */
#define AMCC_SEQ_MAX_MISORDER   100   /* RFC 3550 A.1 MAX_MISORDER */
#define AMCC_SEQ_DUP_WINDOW     256   /* recent packets remembered to reject duplicates */

/* What amcc_seq_update() decided about one packet. Packets with a result >= AMCC_SEQ_NEW
 * count as received; the others must not be used for statistics. */
typedef enum amcc_seq_result {
  AMCC_SEQ_PROBATION = -4, /* source not yet validated (first MIN_SEQUENTIAL packets) */
  AMCC_SEQ_BAD = -3,       /* large jump seen once: dropped until confirmed by the next packet */
  AMCC_SEQ_DUPLICATE = -2, /* already received (within the duplicate window) */
  AMCC_SEQ_TOO_OLD = -1,   /* misordered by more than MAX_MISORDER: dropped (A.1) */
  AMCC_SEQ_NEW = 0,        /* in order (possibly after a gap) */
  AMCC_SEQ_REORDERED = 1,  /* late but inside the misorder window, not a duplicate */
  AMCC_SEQ_RESYNC = 2      /* confirmed large jump: statistics restarted at this packet (A.1) */
} amcc_seq_result;

typedef struct amcc_seq {
  uint16_t max_seq;        /* highest seq number seen */
  uint64_t cycles;         /* count of seq wraps, shifted left 16 bits (kept monotone
                              across resyncs so extended numbers never go backwards) */
  uint64_t base_seq;       /* first seq of the statistics (extended) */
  uint32_t bad_seq;        /* last 'bad' seq + 1 */
  uint32_t probation;      /* packets still needed to validate the source */
  uint64_t received;       /* packets counted as received (duplicates excluded) */
  uint64_t expected_prior; /* at the last amcc_seq_interval() */
  uint64_t received_prior;
  uint64_t duplicates;     /* rejected duplicates (diagnostic) */
  uint64_t reordered;      /* accepted late packets (diagnostic) */
  uint64_t dup_bits[AMCC_SEQ_DUP_WINDOW / 64]; /* bit (ext % WINDOW) set = received */
  int started;
} amcc_seq;

/* Counts for one reporting interval (RFC 3550 A.3). */
typedef struct amcc_seq_interval {
  int64_t expected;   /* packets expected in the interval */
  int64_t received;   /* packets received in the interval */
  int64_t lost;       /* expected - received, floored at 0 */
  double fraction;    /* lost / expected in [0,1]; 0 when nothing was expected */
} amcc_seq_interval;

void amcc_seq_init (amcc_seq *s);
/* Account one packet. *ext_seq (may be NULL) receives its 32-bit-cycle extended sequence
 * number (uint64, monotone across wraps) whenever the result is >= AMCC_SEQ_NEW. */
amcc_seq_result amcc_seq_update (amcc_seq *s, uint16_t seq, uint64_t *ext_seq);
uint64_t amcc_seq_extended_max (const amcc_seq *s); /* cycles + max_seq */
int64_t amcc_seq_expected (const amcc_seq *s);      /* since base_seq (A.3) */
int64_t amcc_seq_lost (const amcc_seq *s);          /* cumulative, floored at 0 */
/* Close the current interval: fills *out and starts the next one (A.3). */
void amcc_seq_interval_close (amcc_seq *s, amcc_seq_interval *out);

/* The 32-bit extended number nearest the last one (|difference| < 2^15): sequence numbers of
 * a stream whose sender does not send its own extended number (reordering tolerated, no
 * probation or statistics, unlike amcc_seq). */
typedef struct amcc_seq_ext {
  int init;
  uint32_t last;           /* highest extended number so far */
} amcc_seq_ext;
uint32_t amcc_seq_ext_update (amcc_seq_ext *s, uint16_t seq);

/* RFC 3550 A.8 interarrival jitter, ASMP eq. 4-5, in RTP timestamp units. */
typedef struct amcc_interarrival {
  uint32_t prev_transit;
  int have_prev;
  double jitter;          /* J (eq. 5), timestamp units */
} amcc_interarrival;

void amcc_interarrival_init (amcc_interarrival *j);
/* arrival_ts: arrival time in RTP timestamp units (any origin, wraps mod 2^32);
 * rtp_ts: the packet's RTP timestamp. Returns D (eq. 4) for this packet versus the previous
 * one (0 for the first packet), signed, timestamp units; updates J (eq. 5). */
int64_t amcc_interarrival_update (amcc_interarrival *j, uint32_t arrival_ts, uint32_t rtp_ts);
/* J as the RR "interarrival jitter" field (truncated, saturated to 32 bits). */
uint32_t amcc_interarrival_rr_field (const amcc_interarrival *j);
/* Convert a time to RTP timestamp units (mod 2^32) without overflow. */
uint32_t amcc_time_to_rtp_units (amcc_time t, uint32_t clock_rate);

#ifdef __cplusplus
}
#endif
#endif
