/* fuzz_wire.c - libFuzzer harnesses for every lib/cc decoder and the state machines they feed.
 * One source, three binaries (tests/cc/meson.build, clang only), picked by FUZZ_HARNESS: each
 * binary's coverage feedback and corpus stay about one thing, and the decoders, which cost
 * microseconds, are not slowed down by libFuzzer's bookkeeping of the controller's features.
 *   FUZZ_HARNESS=1 fuzz_decode      target 0 below
 *   FUZZ_HARNESS=2 fuzz_machines    targets 1 and 2
 *   FUZZ_HARNESS=3 fuzz_controller  target 3
 * tests/cc/fuzz-run.sh builds and runs them (test cc-fuzz, `./amcast fuzz`). An input's first
 * byte names its target (0-3, mod 4; kept so that one seed format serves every binary): a
 * binary with one target ignores it, fuzz_machines runs TFMCC when it is 2 mod 4, ASMP
 * otherwise.
 *   0: every decoder on the rest (APP framing, compound walk, ASMP report/echo, ASSP table,
 *      TFMCC sender fields/report, raw and as APP packets, PGMCC sender/report/ACK, RMANP
 *      data/CI/NACK/ACK, AVMRC's header-extension stamp); whatever decodes must re-encode and
 *      decode to the same value; the H.264 frame_num filler (amcc/h264fill.h) on the bytes as
 *      access units;
 *   1: an ASMP receiver and sender driven by records (RTP packets with arbitrary timestamps and
 *      send times, reports, echoes) with a monotone clock;
 *   2: a TFMCC receiver and sender driven the same way, sender fields and reports going
 *      through the decoders;
 *   3: the controller interface (amcc/controller.h) of a registered protocol, both roles: RTP
 *      from a few SSRCs (sender changes), SRs recorded and echoed or forged (proofs, eq. 9 on
 *      our clock), report blocks, APPs of every name ours or not (the receiver's own APPs fed to
 *      the sender and back), BYEs, limits changed to anything, silence; a layered protocol
 *      (AVMRC, RMRC, VMRC: receiver only) gets stamped packets of any layer, slot and time; a
 *      relay-only protocol (RMANP) drives a source -> relay -> receiver chain with lost and forged
 *      packets.
 * Targets 1-3 read at most MAX_RECORDS records per input (the rest is ignored), so that an
 * input's cost is bounded by records, not by its length (the largest seed needs 227).
 * Invariants: no sanitizer report, rates finite and >= 0, RTTs finite. */
#ifndef FUZZ_HARNESS
#error "build with -DFUZZ_HARNESS=1 (decoders), 2 (ASMP/TFMCC machines) or 3 (controller)"
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amcc/asmp.h"
#include "amcc/assp.h"
#include "amcc/avmrc.h"
#include "amcc/controller.h"
#include "amcc/h264fill.h"
#include "amcc/pgmcc.h"
#include "amcc/rmanp.h"
#include "amcc/rtt.h"
#include "amcc/rtcp_app.h"
#include "amcc/tcpmodel.h"
#include "amcc/tfmcc.h"

#define REQUIRE(c) do { if (!(c)) { fprintf (stderr, "invariant failed: %s (%s:%d)\n", #c, \
      __FILE__, __LINE__); abort (); } } while (0)

#if FUZZ_HARNESS > 1
#ifndef MAX_RECORDS
#define MAX_RECORDS 256
#endif

typedef struct { const uint8_t *p; size_t n; unsigned records; } src;

/* another record to read: input left and under the cap */
static int
more (src *s)
{
  return s->n > 0 && s->records++ < MAX_RECORDS;
}

static uint64_t
take (src *s, int bytes)
{
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) {
    v = (v << 8) | (s->n ? *s->p : 0);
    if (s->n) {
      s->p++;
      s->n--;
    }
  }
  return v;
}
#endif

#if FUZZ_HARNESS == 1
static void
decoders (const uint8_t *d, size_t n)
{
  amcc_rtcp_app app;
  if (amcc_rtcp_app_parse (d, n, &app) == AMCC_OK)
    REQUIRE (app.data >= d && app.data + app.data_len <= d + n && app.packet_len <= n);
  if (amcc_rtcp_app_find (d, n, "ASMP", -1, &app) == AMCC_OK)
    REQUIRE (app.data >= d && app.data + app.data_len <= d + n);

  amcc_asmp_report r, r2;
  uint8_t buf[AMCC_RTCP_MAX_PACKET];
  size_t w = 0;
  if (amcc_asmp_report_decode (d, n, &r) == AMCC_OK) {
    REQUIRE (r.rate_bps > 0 && isfinite (r.rate_bps) && r.loss >= 0 && r.loss <= 1);
    REQUIRE (amcc_asmp_report_encode (&r, buf, sizeof buf, &w) == AMCC_OK && w == n);
    REQUIRE (memcmp (buf, d, n) == 0);
    REQUIRE (amcc_asmp_report_decode (buf, w, &r2) == AMCC_OK);
  }
  amcc_assp_table t, t2;
  size_t used = 0;
  if (amcc_assp_table_decode (d, n, &t, &used) == AMCC_OK) {
    REQUIRE (used <= n && used == AMCC_ASSP_TABLE_LEN (t.count) && t.stream < t.count);
    REQUIRE (amcc_assp_table_encode (&t, buf, sizeof buf, &w) == AMCC_OK && w == used);
    REQUIRE (memcmp (buf, d, used) == 0);
    REQUIRE (amcc_assp_table_decode (buf, w, &t2, &used) == AMCC_OK && t2.count == t.count);
  }
  amcc_asmp_echo_entry e[64];
  size_t ne = 64;
  if (amcc_asmp_echo_decode (d, n, e, &ne) == AMCC_OK) {
    REQUIRE (ne <= 64);
    REQUIRE (amcc_asmp_echo_encode (e, ne, buf, sizeof buf, &w) == AMCC_OK && w == n);
    REQUIRE (memcmp (buf, d, n) == 0);
    for (size_t i = 0; i < ne; i++) {
      amcc_time rtt = 0;
      REQUIRE (amcc_asmp_echo_lookup (d, n, e[i].ssrc, &rtt) == AMCC_OK && rtt > 0);
    }
  }
  amcc_time rtt;
  (void) amcc_asmp_echo_lookup (d, n, n >= 8 ? (uint32_t) d[4] << 24 | d[5] << 16 | d[6] << 8 | d[7] : 0, &rtt);

  struct amcc_tfmcc_sender_info si, si2;
  struct amcc_tfmcc_report rp, rp2;
  uint32_t ssrc;
  if (amcc_tfmcc_sender_info_decode (&si, d, n) >= 0) {
    REQUIRE (isfinite (si.rate_bps) && si.rate_bps > 0);
    int m = amcc_tfmcc_sender_info_encode (&si, buf, sizeof buf);
    REQUIRE (m == (int) n && memcmp (buf, d, n) == 0);
    REQUIRE (amcc_tfmcc_sender_info_decode (&si2, buf, (size_t) m) == m);
  }
  if (amcc_tfmcc_report_decode (&rp, d, n) >= 0) {
    REQUIRE (isfinite (rp.rate_bps) && rp.rate_bps >= 0);
    int m = amcc_tfmcc_report_encode (&rp, buf, sizeof buf);
    REQUIRE (m == (int) n && memcmp (buf, d, n) == 0);
    REQUIRE (amcc_tfmcc_report_decode (&rp2, buf, (size_t) m) == m);
  }
  struct amcc_rmanp_pkt rk, rk2;      /* RMANP: decoded packets re-encode exactly */
  if (n <= sizeof buf && amcc_rmanp_decode (&rk, d, n) == AMCC_OK) {
    REQUIRE (rk.type >= AMCC_RMANP_DATA && rk.type <= AMCC_RMANP_ACK);
    REQUIRE (rk.type != AMCC_RMANP_DATA || (rk.payload == d + AMCC_RMANP_DATA_HDR
            && AMCC_RMANP_DATA_HDR + (size_t) rk.len == n));
    REQUIRE (amcc_rmanp_encode (&rk, buf, sizeof buf) == (int) n);
    REQUIRE (memcmp (buf, d, n) == 0 && amcc_rmanp_decode (&rk2, buf, n) == AMCC_OK);
  }
  int m = amcc_tfmcc_sender_info_read_app (&si, &ssrc, d, n);
  REQUIRE (m < 0 || (size_t) m <= n);
  m = amcc_tfmcc_report_read_app (&rp, &ssrc, d, n);
  REQUIRE (m < 0 || (size_t) m <= n);
  (void) amcc_tfmcc_sender_info_find_app (&si, &ssrc, d, n);
  (void) amcc_tfmcc_report_find_app (&rp, &ssrc, d, n);

  struct amcc_pgmcc_sender_info pi, pi2;      /* PGMCC: decoded payloads re-encode exactly */
  struct amcc_pgmcc_feedback pf, pf2;
  struct amcc_pgmcc_ack pa, pa2;
  if (amcc_pgmcc_sender_info_decode (&pi, d, n) == AMCC_OK) {
    REQUIRE (amcc_pgmcc_sender_info_encode (&pi, buf, sizeof buf) == (int) n);
    REQUIRE (memcmp (buf, d, n) == 0 && amcc_pgmcc_sender_info_decode (&pi2, buf, n) == AMCC_OK);
  }
  if (amcc_pgmcc_report_decode (&pf, d, n) == AMCC_OK) {
    REQUIRE (pf.loss >= 0 && pf.loss <= 1);
    REQUIRE (amcc_pgmcc_report_encode (&pf, buf, sizeof buf) == (int) n);
    REQUIRE (memcmp (buf, d, n) == 0 && amcc_pgmcc_report_decode (&pf2, buf, n) == AMCC_OK);
  }
  if (amcc_pgmcc_ack_decode (&pa, d, n) == AMCC_OK) {
    REQUIRE (amcc_pgmcc_ack_encode (&pa, buf, sizeof buf) == (int) n);
    REQUIRE (memcmp (buf, d, n) == 0 && amcc_pgmcc_ack_decode (&pa2, buf, n) == AMCC_OK);
  }
  amcc_avmrc_stamp as, as2;                   /* AVMRC: the stamp re-encodes exactly */
  if (amcc_avmrc_stamp_decode (&as, d, n) == AMCC_OK) {
    REQUIRE (n == AMCC_AVMRC_STAMP_LEN && as.layer < AMCC_AVMRC_MAX_LAYERS && as.send_time >= 0);
    REQUIRE (amcc_avmrc_stamp_encode (&as, buf, sizeof buf) == (int) n);
    REQUIRE (memcmp (buf, d, n) == 0 && amcc_avmrc_stamp_decode (&as2, buf, n) == AMCC_OK);
    REQUIRE (as2.slot == as.slot && as2.flagged == as.flagged && as2.send_time == as.send_time);
  }
  /* the H.264 frame_num filler: the bytes as access units (whole, then its two halves); a
   * synthetic unit fits its bound and goes through the filler too */
  static amcc_h264fill hf;
  uint8_t syn[AMCC_H264FILL_MAX_BYTES], syn2[AMCC_H264FILL_MAX_BYTES];
  amcc_h264fill_init (&hf);
  for (int k = 0; k < 4; k++) {
    const uint8_t *p = k == 2 ? d + n / 2 : d;
    size_t len = k == 1 ? n / 2 : k == 2 ? n - n / 2 : n;
    long r = amcc_h264fill_au (&hf, p, len, (long) (n % 4) - 1 + k, syn, sizeof syn);
    REQUIRE (r >= 0 && r <= AMCC_H264FILL_MAX_BYTES);
    if (r > 0)
      REQUIRE (amcc_h264fill_au (&hf, syn, (size_t) r, 0, syn2, sizeof syn2) >= 0);
  }
}

#endif

#if FUZZ_HARNESS == 2
static void
asmp (src *s)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, (uint32_t) take (s, 1) % 2 ? 90000 : 8000);
  amcc_asmp_sender *tx = amcc_asmp_sender_new (&p, 0);
  amcc_time now = (amcc_time) (take (s, 5));     /* any start up to ~12 days */
  while (more (s)) {
    uint8_t op = (uint8_t) take (s, 1);
    now += (amcc_time) take (s, 3) * 1000;       /* 0 .. 16.7 s steps */
    switch (op % 5) {
      case 0:
      case 1: {
        uint16_t seq = (uint16_t) take (s, 2);
        uint32_t ts = (uint32_t) take (s, 4);
        int64_t st = (int64_t) take (s, 8);       /* arbitrary send time, NONE included */
        (void) amcc_asmp_receiver_on_rtp (&rx, now, seq, ts, op % 2 ? st : AMCC_TIME_NONE,
            (uint32_t) take (s, 2));
        break;
      }
      case 2: {
        amcc_asmp_report r;
        amcc_asmp_receiver_make_report (&rx, now, &r);
        REQUIRE (isfinite (r.rate_bps) && r.rate_bps > 0 && isfinite (r.rtt_s) && r.rtt_s > 0);
        REQUIRE (r.loss >= 0 && r.loss <= 1);
        uint8_t buf[AMCC_ASMP_REPORT_LEN];
        size_t w;
        amcc_asmp_report back;
        if (amcc_asmp_report_encode (&r, buf, sizeof buf, &w) == AMCC_OK
            && amcc_asmp_report_decode (buf, w, &back) == AMCC_OK)
          (void) amcc_asmp_sender_on_report (tx, now, (uint32_t) take (s, 1), &back);
        break;
      }
      case 3:
        (void) amcc_asmp_receiver_on_rtt_echo (&rx, now, (amcc_time) take (s, 8));
        (void) amcc_asmp_sender_on_report_block (tx, now, (uint32_t) take (s, 1),
            (amcc_time) take (s, 5));
        break;
      default: {
        double rate = amcc_asmp_sender_rate (tx, now);
        REQUIRE (isfinite (rate) && rate >= p.min_rate_bps && rate <= p.max_rate_bps);
        amcc_asmp_echo_entry e[4];
        (void) amcc_asmp_sender_fill_echo (tx, now, e, 4);
        (void) amcc_asmp_receiver_on_peer_report (&rx, now, (double) take (s, 4));
        (void) amcc_asmp_receiver_schedule (&rx, now, (amcc_time) take (s, 5),
            (uint32_t) take (s, 2), (double) take (s, 1) / 256.0);
        break;
      }
    }
  }
  amcc_asmp_sender_free (tx);
}

static void
tfmcc (src *s)
{
  struct amcc_tfmcc_params p;
  amcc_tfmcc_params_init (&p);
  struct amcc_tfmcc_receiver rx;
  amcc_time now = (amcc_time) take (s, 5);
  amcc_tfmcc_receiver_init (&rx, &p, 7, now);
  struct amcc_tfmcc_sender *tx = amcc_tfmcc_sender_new (&p, now);
  uint8_t buf[64];
  while (more (s)) {
    uint8_t op = (uint8_t) take (s, 1);
    now += (amcc_time) take (s, 3) * 1000;
    switch (op % 5) {
      case 0:
      case 1:
        amcc_tfmcc_receiver_on_rtp (&rx, now, (uint16_t) take (s, 2), (size_t) take (s, 2),
            op % 2, (uint32_t) take (s, 4));
        break;
      case 2: {              /* sender fields: the real ones, or fuzz bytes through the decoder */
        struct amcc_tfmcc_sender_info si;
        if (op & 0x80) {
          for (unsigned i = 0; i < AMCC_TFMCC_SENDER_INFO_LEN; i++)
            buf[i] = (uint8_t) take (s, 1);
          buf[0] = AMCC_TFMCC_WIRE_VERSION;
          buf[1] &= 0xf0;
          if (amcc_tfmcc_sender_info_decode (&si, buf, AMCC_TFMCC_SENDER_INFO_LEN) < 0)
            break;
        } else {
          amcc_tfmcc_sender_fill_info (tx, now, &si);
        }
        amcc_tfmcc_receiver_on_sender_info (&rx, now, &si, (double) take (s, 2) / 65535.0);
        break;
      }
      case 3: {
        struct amcc_tfmcc_report r;
        if (op & 0x80) {
          for (unsigned i = 0; i < AMCC_TFMCC_REPORT_LEN; i++)
            buf[i] = (uint8_t) take (s, 1);
          buf[0] = AMCC_TFMCC_WIRE_VERSION;
          buf[1] &= 0xf0;
          if (amcc_tfmcc_report_decode (&r, buf, AMCC_TFMCC_REPORT_LEN) < 0)
            break;
        } else {
          amcc_tfmcc_receiver_make_report (&rx, now, &r);
        }
        amcc_tfmcc_sender_on_report (tx, now, (uint32_t) take (s, 1), &r);
        break;
      }
      default: {
        double x = amcc_tfmcc_sender_rate (tx, now);
        REQUIRE (isfinite (x) && x > 0);
        REQUIRE (isfinite (amcc_tfmcc_receiver_rate (&rx)) && amcc_tfmcc_receiver_rate (&rx) >= 0);
        REQUIRE (isfinite (amcc_tfmcc_receiver_rtt (&rx)) && amcc_tfmcc_receiver_rtt (&rx) > 0);
        (void) amcc_tfmcc_sender_pacing_interval (tx, now, (size_t) take (s, 2));
        if (op & 0x80)
          amcc_tfmcc_sender_on_bye (tx, now, (uint32_t) take (s, 1));
        break;
      }
    }
  }
  amcc_tfmcc_sender_free (tx);
}

#endif

#if FUZZ_HARNESS == 3
/* a layered receiver-only protocol: stamped packets of any layer, slot and time */
static void
layered (src *s, const amcc_protocol *p)
{
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  if (take (s, 1) & 1) {                      /* the caller's own layer table, valid or not */
    c.layers = (uint32_t) take (s, 1) % (AMCC_MAX_LAYERS + 2);
    for (uint32_t i = 0; i < c.layers && i < AMCC_MAX_LAYERS; i++)
      c.layer_bps[i] = (double) take (s, 3) * (i + 1);
  }
  amcc_receiver *rx = amcc_receiver_new (p, &c, 0);
  if (!rx)
    return;
  amcc_time now = 0;
  uint32_t slot = 0;
  while (more (s)) {
    uint8_t op = (uint8_t) take (s, 1);
    now += (amcc_time) take (s, 2) * 10000;       /* 0 .. 655 ms steps */
    slot += op & 4 ? (uint32_t) take (s, 1) : 0;
    uint16_t seq = (uint16_t) take (s, 2);           /* taken in this order (seed files) */
    uint32_t bytes = (uint32_t) take (s, 2);
    amcc_time sent = op & 8 ? now - (amcc_time) take (s, 3) * 1000 : (amcc_time) (take (s, 8) >> 1);
    uint32_t at = op & 32 ? (uint32_t) take (s, 4) : slot;
    uint32_t layer = (uint32_t) take (s, 1) % 20;
    amcc_packet pk = { .ssrc = 0x50 + (op & 15), .seq = seq, .bytes = bytes, .send_time = sent,
      .has_slot = op & 16, .slot = at, .slot_flagged = op & 64, .layer = layer };
    amcc_receiver_on_rtp (rx, now, &pk);
    uint32_t n = amcc_receiver_wanted_layers (rx);
    REQUIRE (n >= 1 && n <= (c.layers ? c.layers : AMCC_AVMRC_PAPER_LAYERS));
    if (op & 128) {
      amcc_receiver_stats rs;
      amcc_receiver_get_stats (rx, now, &rs);
      REQUIRE (!isnan (rs.rate_bps) && rs.rate_bps >= 0 && rs.layers == n);
      REQUIRE (amcc_receiver_next_app (rx, now, NULL, 0, NULL) == 0);
    }
  }
  amcc_receiver_free (rx);
}

/* RMANP: a source, a relay through the controller interface and a receiver on a chain whose
 * links the input drops, delays or replaces with arbitrary bytes (decoded or not); the relay's
 * queues stay within their capacities and its memory never changes. */
static void
rmanp_roles (const amcc_protocol *p, src *s)
{
  struct amcc_rmanp_params prm;
  amcc_rmanp_params_init (&prm);
  prm.window_packets = 64;
  prm.cache_packets = (uint32_t) take (s, 1) % 40 + 1;
  prm.queue_packets = (uint32_t) take (s, 1) % 12 + 1;
  prm.packet_bytes = (uint32_t) take (s, 1) % 200 + AMCC_RMANP_DATA_HDR + 1;
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  c.min_bps = prm.rm_bps;
  c.ssrc = 7;
  amcc_rmanp_source *tx = amcc_rmanp_source_new (&prm, 0);
  amcc_relay *re = amcc_relay_new (p, &c, 0);
  amcc_rmanp_receiver *rx = amcc_rmanp_receiver_new (&prm, 9, 0);
  REQUIRE (tx && re && rx);
  uint8_t buf[1500], data[700];
  amcc_time now = 0;
  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t) i;
  while (more (s)) {
    uint8_t op = (uint8_t) take (s, 1);
    now += (amcc_time) take (s, 2) * AMCC_NS_PER_MS;
    int n, up = 0;
    amcc_rmanp_dir dir;
    switch (op % 6) {
    case 0:
      (void) amcc_rmanp_source_write (tx, data, (size_t) take (s, 2) % sizeof data);
      if (op & 0x80)
        amcc_rmanp_source_finish (tx);
      break;
    case 1:                           /* source -> relay, maybe lost */
      while ((n = amcc_rmanp_source_poll (tx, now, buf, sizeof buf, &dir)) > 0)
        if (take (s, 1) & 1)
          (void) amcc_relay_on_packet (re, now, 1, buf, (size_t) n);
      break;
    case 2:                           /* relay -> both sides, maybe lost */
      while ((n = amcc_relay_poll (re, now, buf, sizeof buf, &up)) > 0) {
        if (!(take (s, 1) & 1))
          continue;
        if (up)
          (void) amcc_rmanp_source_on_packet (tx, now, buf, (size_t) n);
        else
          (void) amcc_rmanp_receiver_on_packet (rx, now, buf, (size_t) n);
      }
      break;
    case 3:                           /* receiver -> relay */
      while ((n = amcc_rmanp_receiver_poll (rx, now, buf, sizeof buf, &dir)) > 0)
        if (take (s, 1) & 1)
          (void) amcc_relay_on_packet (re, now, 0, buf, (size_t) n);
      (void) amcc_rmanp_receiver_read (rx, buf, (size_t) take (s, 2) % sizeof buf);
      break;
    default: {                        /* forged bytes to every role */
      size_t len = (size_t) take (s, 1) % 64;
      uint8_t f[64];
      for (size_t i = 0; i < len; i++)
        f[i] = (uint8_t) take (s, 1);
      if (len && (op & 0x40))
        f[0] = AMCC_RMANP_WIRE_VERSION;
      (void) amcc_relay_on_packet (re, now, op & 0x20, f, len);
      (void) amcc_rmanp_source_on_packet (tx, now, f, len);
      (void) amcc_rmanp_receiver_on_packet (rx, now, f, len);
      break;
    }
    }
    REQUIRE (isfinite (amcc_rmanp_source_rate (tx)) && amcc_rmanp_source_rate (tx) >= prm.rm_bps);
    double rr = amcc_relay_rate (re, now);
    REQUIRE (isfinite (rr) && rr >= 0);
  }
  amcc_rmanp_source_free (tx);
  amcc_relay_free (re);
  amcc_rmanp_receiver_free (rx);
}

static void
controller (src *s)
{
  const amcc_protocol *p = amcc_protocol_at ((size_t) take (s, 1) % amcc_protocol_count ());
  if (!p->sender && !p->receiver) {
    rmanp_roles (p, s);               /* relay-only (RMANP) */
    return;
  }
  if (!p->sender) {
    layered (s, p);
    return;
  }
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  c.rtcp_interval = (amcc_time) (take (s, 2) % 5000 + 1) * AMCC_NS_PER_MS;
  c.proofs = (uint32_t) take (s, 1) % 3;
  c.ssrc = 1;
  amcc_sender *tx = amcc_sender_new (p, &c, 0);
  c.ssrc = 2;
  c.seed = take (s, 8);
  amcc_receiver *rx = amcc_receiver_new (p, &c, 0);
  REQUIRE (tx && rx);
  static const char names[5][4] = { { 'A', 'S', 'M', 'P' }, { 'T', 'F', 'M', 'R' },
    { 'T', 'F', 'M', 'S' }, { 'X', 'Y', 'Z', 'W' }, { 'A', 'S', 'S', 'P' } };
  double lo = 64e3, hi = 20e6;
  uint8_t buf[1500];
  amcc_app app;
  amcc_time now = 0;
  uint32_t last_sr = 0;
  while (more (s)) {
    uint8_t op = (uint8_t) take (s, 1);
    now += (amcc_time) take (s, 3) * 1000;       /* 0 .. 16.7 s steps */
    switch (op % 8) {
      case 0:
      case 1: {
        amcc_packet pk = { .ssrc = 0xA + (uint32_t) (op >> 6), .seq = (uint16_t) take (s, 2),
          .rtp_ts = (uint32_t) take (s, 4), .bytes = (uint32_t) take (s, 2),
          .send_time = op & 8 ? (amcc_time) take (s, 8) : AMCC_TIME_NONE,
          .has_extseq = op & 16, .extseq = (uint32_t) take (s, 4) };
        amcc_receiver_on_rtp (rx, now, &pk);
        amcc_sender_on_rtp_sent (tx, now, pk.bytes);
        break;
      }
      case 2:                                     /* our SR leaves, the receiver hears it */
        last_sr = amcc_time_to_ntp_mid32 (now);
        amcc_sender_on_sr_sent (tx, now, last_sr);
        if (amcc_sender_next_app (tx, now, buf, (size_t) take (s, 2) % sizeof buf, &app) == 1)
          (void) amcc_receiver_on_app (rx, now, 1, app.name, app.subtype, buf, app.len);
        amcc_receiver_on_sender_report (rx, now, 1, (uint32_t) take (s, 1));
        break;
      case 3:                                     /* a report block, echoing or forged */
        amcc_sender_on_report_block (tx, now, (uint32_t) take (s, 1), op & 8 ? 1 : 7,
            op & 16 ? last_sr : (uint32_t) take (s, 4), (uint32_t) take (s, 4),
            (uint32_t) take (s, 4));
        break;
      case 4:                                     /* the receiver's report, as made */
        if (amcc_receiver_next_app (rx, now, buf, (size_t) take (s, 2) % sizeof buf, &app) == 1)
          (void) amcc_sender_on_app (tx, now, op & 8 ? 2 : (uint32_t) take (s, 1), app.name,
              app.subtype, buf, app.len);
        break;
      case 5: {                                   /* any APP to either role */
        size_t len = (size_t) take (s, 1) % 64;
        for (size_t i = 0; i < len; i++)
          buf[i] = (uint8_t) take (s, 1);
        const char *name = names[take (s, 1) % 5];
        (void) amcc_sender_on_app (tx, now, (uint32_t) take (s, 1), name, op >> 3, buf, len);
        (void) amcc_receiver_on_app (rx, now, (uint32_t) take (s, 1), name, op >> 3, buf, len);
        (void) amcc_sender_on_app (tx, now, 3, "PGMC", op >> 3, buf, len);      /* PGMCC's */
        (void) amcc_receiver_on_app (rx, now, 3, "PGMC", op >> 3, buf, len);
        break;
      }
      case 6:
        if (op & 8) {
          lo = (double) take (s, 4);
          hi = (double) take (s, 4);
          amcc_sender_set_limits (tx, lo, hi);
        } else if (op & 16) {                     /* the caller switched streams */
          (void) amcc_receiver_set_stream (rx, now, (uint32_t) take (s, 1) % 10);
          REQUIRE (amcc_receiver_wanted_stream (rx) < AMCC_MAX_STREAMS);
        } else if (op & 32) {                     /* the application excludes / readmits */
          REQUIRE (amcc_sender_exclude (tx, now, (uint32_t) take (s, 1), op & 64) == AMCC_OK);
        } else {
          amcc_sender_on_bye (tx, now, (uint32_t) take (s, 1));
        }
        break;
      default: {
        double rate = amcc_sender_rate (tx, now);
        REQUIRE (isfinite (rate) && rate >= 0);
        REQUIRE (lo > hi || (rate >= lo && rate <= hi) || (lo <= 0 && rate <= hi));
        amcc_sender_stats ss;
        amcc_receiver_stats rs;
        amcc_sender_get_stats (tx, now, &ss);
        amcc_receiver_get_stats (rx, now, &rs);
        REQUIRE (isfinite (rs.rate_bps) && rs.mode != NULL);
        REQUIRE (!ss.have_outlier || ss.outlier_rate_bps < ss.next_rate_bps);
        size_t it = 0;
        const amcc_peer *peer;
        while ((peer = amcc_sender_next_peer (tx, &it)))
          REQUIRE (isfinite (peer->rate_bps));
        (void) amcc_sender_early_due (tx, now);
        (void) amcc_receiver_early_due (rx, now);
        break;
      }
    }
  }
  amcc_sender_free (tx);
  amcc_receiver_free (rx);
}

#endif

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
#if FUZZ_HARNESS == 1
  decoders (data + 1, size - 1);
#else
  src s = { data + 1, size - 1, 0 };
#if FUZZ_HARNESS == 2
  if (data[0] % 4 == 2)
    tfmcc (&s);
  else
    asmp (&s);
#else
  controller (&s);
#endif
#endif
  return 0;
}
