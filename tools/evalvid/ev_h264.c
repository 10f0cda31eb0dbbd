/* ev_h264.c - Annex B access-unit splitter (H.264 7.4.1.2.3, first-slice rule). */
#include "ev_h264.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Offset of the next 00 00 01 at or after POS, or LEN. */
static size_t next_start(const uint8_t *d, size_t len, size_t pos)
{
  for (size_t i = pos; i + 2 < len; i++)
    if (d[i] == 0 && d[i + 1] == 0 && d[i + 2] == 1) return i;
  return len;
}

/* Reads an unsigned Exp-Golomb value from the RBSP at P (emulation prevention removed on the fly). */
typedef struct { const uint8_t *p; size_t len, byte; int bit, zeros; } bitrd;

static int rd_bit(bitrd *b)
{
  if (b->byte >= b->len) return -1;
  if (b->bit == 0) {                                       /* entering a new byte */
    if (b->zeros >= 2 && b->p[b->byte] == 3) { b->byte++; b->zeros = 0; if (b->byte >= b->len) return -1; }
    b->zeros = b->p[b->byte] == 0 ? b->zeros + 1 : 0;
  }
  int v = (b->p[b->byte] >> (7 - b->bit)) & 1;
  if (++b->bit == 8) { b->bit = 0; b->byte++; }
  return v;
}

static long rd_ue(bitrd *b)
{
  int lz = 0, v;
  while ((v = rd_bit(b)) == 0) if (++lz > 31) return -1;
  if (v < 0) return -1;
  long x = 0;
  for (int i = 0; i < lz; i++) { int c = rd_bit(b); if (c < 0) return -1; x = (x << 1) | c; }
  return (1L << lz) - 1 + x;
}

long ev_h264_split(const uint8_t *d, size_t len, ev_au **out, char *err, size_t errlen)
{
  size_t s = next_start(d, len, 0);
  for (size_t i = 0; i < s; i++)
    if (d[i] != 0) { snprintf(err, errlen, "not an H.264 Annex B stream (no start code at byte %zu)", i); return -1; }
  if (s == len) { snprintf(err, errlen, "not an H.264 Annex B stream (no start code)"); return -1; }
  ev_au *a = NULL; size_t cap = 0, n = 0;
  int have_vcl = 0;
  size_t au_start = 0;               /* stream start: leading zeros belong to the first AU */
  char au_type = 'H';
  while (s < len) {
    size_t nal = s + 3, e = next_start(d, len, nal);
    size_t nal_begin = s;            /* include a 4-byte start code's leading zero */
    if (nal_begin > 0 && d[nal_begin - 1] == 0 && nal_begin - 1 >= au_start) nal_begin--;
    int t = nal < len ? d[nal] & 0x1f : 0;
    int vcl = t >= 1 && t <= 5;
    int first_mb0 = 0; long slice_type = -1;
    if (vcl && nal + 1 < e) {
      bitrd b = { d + nal + 1, e - nal - 1, 0, 0, 0 };
      long first_mb = rd_ue(&b);
      slice_type = rd_ue(&b);
      first_mb0 = first_mb == 0;
    }
    int boundary = have_vcl && (t == 9 || t == 6 || t == 7 || t == 8 || (t >= 14 && t <= 18) || (vcl && first_mb0));
    if (boundary) {
      if (n == cap) { cap = cap ? cap * 2 : 1024; ev_au *p = realloc(a, cap * sizeof *a); if (!p) { free(a); snprintf(err, errlen, "out of memory"); return -1; } a = p; }
      a[n++] = (ev_au){ au_start, nal_begin - au_start, au_type };
      au_start = nal_begin; have_vcl = 0; au_type = 'H';
    }
    if (vcl) {
      char st = 'P';
      if (t == 5) st = 'I';
      else if (slice_type >= 0) { long m = slice_type % 5; st = m == 1 ? 'B' : (m == 2 || m == 4) ? 'I' : 'P'; }
      /* the frame's type is its "strongest" slice: I over P over B */
      if (!have_vcl || st == 'I' || (st == 'P' && au_type == 'B')) au_type = st;
      have_vcl = 1;
    }
    s = e;
  }
  if (n == cap) { cap = cap + 1; ev_au *p = realloc(a, cap * sizeof *a); if (!p) { free(a); snprintf(err, errlen, "out of memory"); return -1; } a = p; }
  a[n++] = (ev_au){ au_start, len - au_start, au_type };
  *out = a;
  return (long)n;
}

size_t ev_h264_slices_only(const uint8_t *au, size_t len, uint8_t *out)
{
  size_t w = 0, s = next_start(au, len, 0);
  while (s < len) {
    size_t nal = s + 3, e = next_start(au, len, nal);
    size_t end = e;                      /* a 4-byte start code's zero belongs to the next NAL */
    if (e < len && end > nal && au[end - 1] == 0) end--;
    int t = nal < len ? au[nal] & 0x1f : 0;
    if (t >= 1 && t <= 5) {
      memcpy(out + w, au + s, end - s);
      w += end - s;
    }
    s = e;
  }
  return w;
}

/* A non-slice NAL unit of N bytes arrived if a header packet of that payload size arrived (one NAL
 * unit per packet, copies from the payloader's config-interval included); with no header packet
 * of that size it travelled elsewhere, and counts as arrived iff every header packet did. */
static bool header_nal_arrived(size_t n, const ev_pkt_part *hdr, size_t nhdr)
{
  bool matched = false, all = true;
  for (size_t k = 0; k < nhdr; k++) {
    all &= hdr[k].got;
    if (hdr[k].payload == n) {
      if (hdr[k].got) return true;
      matched = true;
    }
  }
  return !matched && all;
}

size_t ev_h264_received(const uint8_t *au, size_t len, const ev_pkt_part *pic, size_t npic,
                        const ev_pkt_part *hdr, size_t nhdr, uint8_t *out, size_t *cut)
{
  /* slice bytes B (NAL units without start codes) and picture payload bytes P */
  uint64_t B = 0, P = 0;
  for (size_t s = next_start(au, len, 0); s < len;) {
    size_t nal = s + 3, e = next_start(au, len, nal), end = e;
    if (e < len && end > nal && au[end - 1] == 0) end--;
    int t = nal < len ? au[nal] & 0x1f : 0;
    if (t >= 1 && t <= 5) B += end - nal;
    s = e;
  }
  for (size_t k = 0; k < npic; k++) P += pic[k].payload;
  size_t w = 0;
  uint64_t x = 0;                       /* slice-byte position of the current NAL unit */
  *cut = 0;
  for (size_t s = next_start(au, len, 0); s < len;) {
    size_t nal = s + 3, e = next_start(au, len, nal), end = e;
    if (e < len && end > nal && au[end - 1] == 0) end--;
    int t = nal < len ? au[nal] & 0x1f : 0;
    size_t from = s > 0 && au[s - 1] == 0 ? s - 1 : s;   /* with a 4-byte start code's zero */
    if (!(t >= 1 && t <= 5)) {
      if (header_nal_arrived(end - nal, hdr, nhdr)) { memcpy(out + w, au + from, end - from); w += end - from; }
      s = e;
      continue;
    }
    uint64_t a = x, b = x + (end - nal), keep = b - a, cum = 0;
    /* packet k carries slice bytes [B*cum_k/P, B*cum_{k+1}/P): the first lost byte in [a, b) */
    for (size_t k = 0; P && k < npic; cum += pic[k].payload, k++) {
      if (pic[k].got || !pic[k].payload) continue;
      uint64_t lo = B * cum / P, hi = B * (cum + pic[k].payload) / P;
      if (lo < b && hi > a && (lo > a ? lo - a : 0) < keep) keep = lo > a ? lo - a : 0;
    }
    if (keep) { memcpy(out + w, au + from, nal - from + keep); w += nal - from + keep; }
    *cut += (size_t)(b - a - keep);
    x = b;
    s = e;
  }
  return w;
}
