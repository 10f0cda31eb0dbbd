/* rmanp.h - RMANP (papers/004, spec/rmanp.md): rate-based, fully reliable multicast of a byte
 * stream over a tree of source -> relays ("active routers") -> receivers. Relays detect
 * congestion from sequence gaps, send congestion indications (CI) upstream, throttle their own
 * output and queue the excess in new_queue, and repair losses from a packet cache.
 *
 * Three roles, each opaque, all memory allocated at _new and never again (capacities in the
 * params). Time is passed in; nothing is sent by the roles themselves: the caller feeds
 * packets in (_on_packet), then calls _poll until it returns 0 to get each packet to send
 * (encoded, with its direction), and calls _poll again at _next_due at the latest.
 *
 *   source --DATA--> relay --DATA--> relay --DATA--> receivers   (multicast down each hop)
 *          <--CI, NACK, ACK--  <--CI, NACK, ACK--  <--CI, NACK, ACK--   (unicast to the parent)
 *
 * Choices where the paper is silent (lib/cc/README.md, "RMANP"): ACKs are cumulative and
 * aggregated at every relay (the minimum over its children, sent up when it advances); a child
 * registers with its first ACK (receivers send one at start); sequence numbers are 32-bit and do
 * not wrap (a session is < 2^32 packets). Wire formats: docs/wire-formats.md ("RMANP"). */
#ifndef AMCC_RMANP_H
#define AMCC_RMANP_H
#include <stddef.h>
#include <stdint.h>
#include "amcc.h"
#ifdef __cplusplus
extern "C" {
#endif

/* ---- wire (rmanp_wire.c) ---- */
#define AMCC_RMANP_WIRE_VERSION 1
#define AMCC_RMANP_DATA_HDR 16        /* data header; payload follows */
#define AMCC_RMANP_CTL_LEN 16         /* CI, NACK, ACK */
#define AMCC_RMANP_NACK_MAX 1024      /* packets one NACK may ask for */

typedef enum amcc_rmanp_type {
  AMCC_RMANP_DATA = 1,
  AMCC_RMANP_CI = 2,
  AMCC_RMANP_NACK = 3,
  AMCC_RMANP_ACK = 4
} amcc_rmanp_type;

#define AMCC_RMANP_F_MARK 0x01        /* data: revealed a gap already reported upstream */
#define AMCC_RMANP_F_RETX 0x02        /* data: a retransmission (no gap detection on it) */
#define AMCC_RMANP_F_FIN  0x04        /* data: the stream's last packet */

/* One packet, any type. DATA: seq, value = rate it was sent at (bit/s, > 0), flags, payload.
 * CI: node = sender of the CI, seq = the packet that revealed the congestion, value = adjusted
 * rate (bit/s, > 0). NACK: node, seq = first missing, value = count (1..NACK_MAX). ACK: node,
 * seq = cumulative (every packet below it received), value 0. */
struct amcc_rmanp_pkt {
  uint8_t type, flags;
  uint32_t node, seq, value;
  const uint8_t *payload;       /* DATA only: points into the decoded buffer */
  uint16_t len;
};

/* Bytes written (> 0) or an amcc_status (NOSPACE, PARAM for an invalid packet). */
int amcc_rmanp_encode (const struct amcc_rmanp_pkt *p, uint8_t *buf, size_t cap);
/* AMCC_OK, or TRUNCATED (shorter than the format or its length field), VERSION, TYPE (unknown
 * type), FIELD (reserved bits set, trailing bytes, a value out of range). */
int amcc_rmanp_decode (struct amcc_rmanp_pkt *out, const uint8_t *buf, size_t len);

/* ---- parameters (rmanp.c): every constant, the paper's value as default ---- */
struct amcc_rmanp_params {
  double rm_bps;                /* Rm, minimum acceptable rate: 16 kbit/s */
  double is;                    /* source increase per packet ACKed, fraction of Rm: 0.005 */
  double in;                    /* relay increase per packet ACKed, fraction of Rm: 0.05 */
  double da;                    /* absolute decrease at the detecting node: 0.8 */
  double dr;                    /* relative decrease per relay hop: 0.99 */
  uint32_t packet_bytes;        /* data packet on the wire, header included: 1057 */
  uint32_t cache_packets;       /* relay packet cache: 100 */
  uint32_t queue_packets;       /* relay new_queue: 10 */
  /* not in the paper (named, our defaults): */
  uint32_t window_packets;      /* source buffer of unACKed packets = receiver reorder window: 256 */
  uint32_t repair_packets;      /* relay queue of retransmissions waiting for their turn: 32 */
  uint32_t max_children;        /* children a source or relay aggregates ACKs of: 16 */
  uint32_t nack_ci_threshold;   /* receiver: successive NACKs of one packet that signal a CI: 3 */
  amcc_time ack_timeout;        /* source fallback: no ACK progress this long = congestion: 2 s */
  amcc_time nack_interval;      /* a missing packet is asked for again after: 1 s (> an RTT) */
  amcc_time repair_holdoff;     /* a packet repaired this recently is not repaired again: 0.5 s */
  amcc_time ack_repeat;         /* an unchanged ACK is repeated after: 1 s */
  /* exclusion below Rm: over each exclude_window (30 s) a child that ACKed less than
   * exclude_fraction x Rm (0.5; 1 = the paper's Rm, but ACKs lag what is sent) while Rm had been
   * sent and another child ACKed exclude_fraction x Rm more is excluded */
  amcc_time exclude_window;
  double exclude_fraction;
};
void amcc_rmanp_params_init (struct amcc_rmanp_params *p);
/* AMCC_OK or AMCC_ERR_PARAM. */
int amcc_rmanp_params_check (const struct amcc_rmanp_params *p);

/* The equations (rmanp.c), one function each. */
double amcc_rmanp_source_increase (const struct amcc_rmanp_params *p, double rate_bps,
    uint32_t acked);                                  /* rate + Is Rm acked */
double amcc_rmanp_relay_increase (const struct amcc_rmanp_params *p, double rate_bps,
    uint32_t acked);                                  /* rate + In Rm acked */
double amcc_rmanp_adjusted_rate (const struct amcc_rmanp_params *p, double sent_bps);  /* x Da */
double amcc_rmanp_relayed_rate (const struct amcc_rmanp_params *p, double ci_bps);     /* x Dr */
/* The payload a data packet carries: packet_bytes - the data header. */
uint32_t amcc_rmanp_payload_max (const struct amcc_rmanp_params *p);

/* What _poll returns a packet for. */
typedef enum amcc_rmanp_dir {
  AMCC_RMANP_DOWN = 0,          /* data to the role's children (its multicast group) */
  AMCC_RMANP_UP = 1             /* CI / NACK / ACK to the parent */
} amcc_rmanp_dir;

/* Counters; malformed = packets rejected by the decoder or not for this role. */
struct amcc_rmanp_stats {
  double rate_bps;              /* source: its rate; relay: its output rate while controlled */
  int controlled;               /* relay: rate control on (new_queue not yet drained) */
  uint32_t queued, queue_peak;  /* relay: new_queue now / most; source: unACKed packets */
  uint32_t cached, repair_queued;
  uint32_t children, excluded;  /* live children, children excluded below Rm */
  uint32_t acked;               /* the aggregated cumulative ACK (receiver: its own) */
  uint64_t sent, retransmitted, forwarded;
  uint64_t ci_sent, ci_received, ci_filtered, reactions;
  uint64_t gaps, marked, overflows, cache_hits, cache_misses;
  uint64_t nacks_sent, nacks_received, acks_sent, ack_timeouts;
  uint64_t duplicates, malformed, ignored;
};

/* ---- source (rmanp_source.c) ---- */
typedef struct amcc_rmanp_source amcc_rmanp_source;
amcc_rmanp_source *amcc_rmanp_source_new (const struct amcc_rmanp_params *p, amcc_time now);
void amcc_rmanp_source_free (amcc_rmanp_source *s);
/* Takes up to len bytes of the stream (fewer when window_packets are unACKed): bytes taken. */
size_t amcc_rmanp_source_write (amcc_rmanp_source *s, const uint8_t *data, size_t len);
/* End of stream: the last (partial) packet goes out with FIN. */
void amcc_rmanp_source_finish (amcc_rmanp_source *s);
/* A CI, NACK or ACK from a child: AMCC_OK or a decode status (counted in malformed). */
int amcc_rmanp_source_on_packet (amcc_rmanp_source *s, amcc_time now, const uint8_t *buf,
    size_t len);
/* The next packet due now into buf: its length, 0 = nothing now, < 0 = amcc_status. */
int amcc_rmanp_source_poll (amcc_rmanp_source *s, amcc_time now, uint8_t *buf, size_t cap,
    amcc_rmanp_dir *dir);
/* When to poll next (AMCC_TIME_NONE: only after new input). */
amcc_time amcc_rmanp_source_next_due (amcc_rmanp_source *s, amcc_time now);
/* Every child still in the session has ACKed the FIN. */
int amcc_rmanp_source_done (const amcc_rmanp_source *s);
double amcc_rmanp_source_rate (const amcc_rmanp_source *s);
void amcc_rmanp_source_get_stats (const amcc_rmanp_source *s, struct amcc_rmanp_stats *st);

/* ---- relay (rmanp_relay.c) ---- */
typedef struct amcc_rmanp_relay amcc_rmanp_relay;
/* node: the id this relay puts in its CI / NACK / ACK (unique among its parent's children). */
amcc_rmanp_relay *amcc_rmanp_relay_new (const struct amcc_rmanp_params *p, uint32_t node,
    amcc_time now);
void amcc_rmanp_relay_free (amcc_rmanp_relay *r);
/* Data from the parent (from_parent = 1) or control from a child (from_parent = 0). */
int amcc_rmanp_relay_on_packet (amcc_rmanp_relay *r, amcc_time now, int from_parent,
    const uint8_t *buf, size_t len);
int amcc_rmanp_relay_poll (amcc_rmanp_relay *r, amcc_time now, uint8_t *buf, size_t cap,
    amcc_rmanp_dir *dir);
amcc_time amcc_rmanp_relay_next_due (amcc_rmanp_relay *r, amcc_time now);
void amcc_rmanp_relay_get_stats (const amcc_rmanp_relay *r, struct amcc_rmanp_stats *st);
/* Bytes allocated at _new (constant for the relay's life). */
size_t amcc_rmanp_relay_memory (const amcc_rmanp_relay *r);

/* ---- receiver (rmanp_receiver.c) ---- */
typedef struct amcc_rmanp_receiver amcc_rmanp_receiver;
amcc_rmanp_receiver *amcc_rmanp_receiver_new (const struct amcc_rmanp_params *p, uint32_t node,
    amcc_time now);
void amcc_rmanp_receiver_free (amcc_rmanp_receiver *r);
int amcc_rmanp_receiver_on_packet (amcc_rmanp_receiver *r, amcc_time now, const uint8_t *buf,
    size_t len);
/* Bytes of the stream in order, up to cap: bytes copied (0: none ready). */
size_t amcc_rmanp_receiver_read (amcc_rmanp_receiver *r, uint8_t *buf, size_t cap);
/* Every byte up to the FIN has been read. */
int amcc_rmanp_receiver_done (const amcc_rmanp_receiver *r);
int amcc_rmanp_receiver_poll (amcc_rmanp_receiver *r, amcc_time now, uint8_t *buf, size_t cap,
    amcc_rmanp_dir *dir);
amcc_time amcc_rmanp_receiver_next_due (amcc_rmanp_receiver *r, amcc_time now);
void amcc_rmanp_receiver_get_stats (const amcc_rmanp_receiver *r, struct amcc_rmanp_stats *st);

#ifdef __cplusplus
}
#endif
#endif
