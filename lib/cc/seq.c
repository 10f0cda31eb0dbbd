/* seq.c - RTP sequence tracking (RFC 3550 A.1, A.3) and interarrival jitter (A.8). */
#include <string.h>
#include "amcc/seq.h"

#define SEQ_MOD 65536u

static void
dup_clear_all (amcc_seq *s)
{
  memset (s->dup_bits, 0, sizeof s->dup_bits);
}

static int
dup_test_set (amcc_seq *s, uint64_t ext)
{
  unsigned b = (unsigned) (ext % AMCC_SEQ_DUP_WINDOW);
  uint64_t m = UINT64_C(1) << (b % 64);
  int was = (s->dup_bits[b / 64] & m) != 0;
  s->dup_bits[b / 64] |= m;
  return was;
}

/* Forget the slots of seqs (old_max, new_max] before they are reused. */
static void
dup_advance (amcc_seq *s, uint64_t old_max, uint64_t new_max)
{
  if (new_max - old_max >= AMCC_SEQ_DUP_WINDOW) {
    dup_clear_all (s);
    return;
  }
  for (uint64_t e = old_max + 1; e <= new_max; e++) {
    unsigned b = (unsigned) (e % AMCC_SEQ_DUP_WINDOW);
    s->dup_bits[b / 64] &= ~(UINT64_C(1) << (b % 64));
  }
}

/* RFC 3550 A.1 init_seq(), keeping the extended numbering monotone. */
static void
restart (amcc_seq *s, uint16_t seq)
{
  uint64_t old = s->cycles + s->max_seq;
  if (s->started) {
    while (s->cycles + seq <= old)
      s->cycles += SEQ_MOD;
  }
  s->base_seq = s->cycles + seq;
  s->max_seq = seq;
  s->bad_seq = SEQ_MOD + 1;
  s->received = 0;
  s->received_prior = 0;
  s->expected_prior = 0;
  dup_clear_all (s);
}

void
amcc_seq_init (amcc_seq *s)
{
  memset (s, 0, sizeof *s);
  s->bad_seq = SEQ_MOD + 1;
}

amcc_seq_result
amcc_seq_update (amcc_seq *s, uint16_t seq, uint64_t *ext_seq)
{
  if (!s->started && s->probation == 0) {
    /* first packet ever: A.1 "init_seq(s, seq); s->max_seq = seq - 1; probation = MIN" */
    s->max_seq = (uint16_t) (seq - 1);
    s->probation = AMCC_SEQ_MIN_SEQUENTIAL;
  }
  uint16_t udelta = (uint16_t) (seq - s->max_seq);

  if (s->probation) {
    if (udelta >= 1 && udelta <= AMCC_SEQ_PROBATION_GAP) {
      s->probation--;
      s->max_seq = seq;
      if (s->probation == 0) {
        restart (s, seq);
        s->started = 1;
        s->received++;
        dup_test_set (s, s->base_seq);
        if (ext_seq)
          *ext_seq = s->base_seq;
        return AMCC_SEQ_NEW;
      }
    } else {
      s->probation = AMCC_SEQ_MIN_SEQUENTIAL - 1;
      s->max_seq = seq;
    }
    return AMCC_SEQ_PROBATION;
  }

  uint64_t old_max = s->cycles + s->max_seq;
  uint64_t ext;
  amcc_seq_result res;
  if (udelta < AMCC_SEQ_MAX_DROPOUT) {
    /* in order, with permissible gap (udelta 0 = same as max: a duplicate, caught below) */
    if (seq < s->max_seq)
      s->cycles += SEQ_MOD;
    s->max_seq = seq;
    ext = s->cycles + seq;
    if (ext > old_max)
      dup_advance (s, old_max, ext);
    res = AMCC_SEQ_NEW;
  } else if (udelta <= SEQ_MOD - AMCC_SEQ_MAX_MISORDER) {
    /* the sequence number made a very large jump */
    if (seq == s->bad_seq) {
      /* two sequential packets: assume the other side restarted without telling us */
      restart (s, seq);
      s->received++;
      dup_test_set (s, s->base_seq);
      if (ext_seq)
        *ext_seq = s->base_seq;
      return AMCC_SEQ_RESYNC;
    }
    s->bad_seq = (uint32_t) ((seq + 1) & (SEQ_MOD - 1));
    return AMCC_SEQ_BAD;
  } else {
    /* duplicate or reordered packet, at most MAX_MISORDER behind */
    uint64_t back = SEQ_MOD - udelta;
    if (back > old_max || old_max - back < s->base_seq)
      return AMCC_SEQ_TOO_OLD;      /* before the statistics started */
    ext = old_max - back;
    res = AMCC_SEQ_REORDERED;
  }
  if (dup_test_set (s, ext)) {
    s->duplicates++;
    return AMCC_SEQ_DUPLICATE;
  }
  if (res == AMCC_SEQ_REORDERED)
    s->reordered++;
  s->received++;
  if (ext_seq)
    *ext_seq = ext;
  return res;
}

uint64_t
amcc_seq_extended_max (const amcc_seq *s)
{
  return s->cycles + s->max_seq;
}

int64_t
amcc_seq_expected (const amcc_seq *s)
{
  if (!s->started)
    return 0;
  return (int64_t) (amcc_seq_extended_max (s) - s->base_seq + 1);
}

int64_t
amcc_seq_lost (const amcc_seq *s)
{
  int64_t lost = amcc_seq_expected (s) - (int64_t) s->received;
  return lost > 0 ? lost : 0;
}

void
amcc_seq_interval_close (amcc_seq *s, amcc_seq_interval *out)
{
  int64_t expected = amcc_seq_expected (s);
  out->expected = expected - (int64_t) s->expected_prior;
  out->received = (int64_t) s->received - (int64_t) s->received_prior;
  if (out->expected < 0)
    out->expected = 0;
  s->expected_prior = (uint64_t) expected;
  s->received_prior = s->received;
  out->lost = out->expected - out->received;
  if (out->lost < 0)
    out->lost = 0;
  out->fraction = (out->expected > 0 && out->lost > 0) ? (double) out->lost / (double) out->expected : 0.0;
}

void
amcc_interarrival_init (amcc_interarrival *j)
{
  memset (j, 0, sizeof *j);
}

int64_t
amcc_interarrival_update (amcc_interarrival *j, uint32_t arrival_ts, uint32_t rtp_ts)
{
  uint32_t transit = arrival_ts - rtp_ts;
  if (!j->have_prev) {
    j->have_prev = 1;
    j->prev_transit = transit;
    return 0;
  }
  /* eq. 4: D = (R_j - R_i) - (S_j - S_i) = transit_j - transit_i, modulo 2^32 */
  int64_t d = (int32_t) (transit - j->prev_transit);
  j->prev_transit = transit;
  /* eq. 5: J = J + (|D| - J) / 16 */
  j->jitter += ((double) (d < 0 ? -d : d) - j->jitter) / 16.0;
  return d;
}

uint32_t
amcc_interarrival_rr_field (const amcc_interarrival *j)
{
  if (!(j->jitter > 0))
    return 0;
  if (j->jitter >= 4294967295.0)
    return UINT32_MAX;
  return (uint32_t) j->jitter;
}

uint32_t
amcc_time_to_rtp_units (amcc_time t, uint32_t clock_rate)
{
  int64_t q = t / AMCC_NS_PER_S, r = t % AMCC_NS_PER_S;
  if (r < 0) {
    r += AMCC_NS_PER_S;
    q -= 1;
  }
  return (uint32_t) ((uint64_t) q * clock_rate + (uint64_t) r * clock_rate / (uint64_t) AMCC_NS_PER_S);
}

uint32_t
amcc_seq_ext_update (amcc_seq_ext *s, uint16_t seq)
{
  uint32_t cand;
  int32_t diff;

  if (!s->init) {
    s->init = 1;
    s->last = seq;
    return seq;
  }
  /* the candidate closest to the last value */
  cand = (s->last & UINT32_C(0xffff0000)) | seq;
  diff = (int32_t) (cand - s->last);
  if (diff > 32768)
    cand -= 65536;
  else if (diff < -32768)
    cand += 65536;
  if ((int32_t) (cand - s->last) > 0)
    s->last = cand;
  return cand;
}
