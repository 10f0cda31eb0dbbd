/* Unit tests of the evalvid core: MOS classes, miv, PSNR cap, SSE, jitter (eq. 3-4), play-out
 * schedule, trace parsing errors, packet matching, H.264 access-unit splitting. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amtest.h"
#include "ev_frames.h"
#include "ev_h264.h"
#include "ev_mos.h"
#include "ev_quality.h"
#include "ev_trace.h"

static void test_mos_boundaries(void)
{
  /* Table 1 of papers/002: > 37 -> 5, 31-37 -> 4, 25-31 -> 3, 20-25 -> 2, < 20 -> 1; a value
   * exactly on a boundary is in the lower class. */
  AMT_CHECK(ev_mos_from_psnr(37.0) == 4);
  AMT_CHECK(ev_mos_from_psnr(nextafter(37.0, 100)) == 5);
  AMT_CHECK(ev_mos_from_psnr(31.0) == 3);
  AMT_CHECK(ev_mos_from_psnr(nextafter(31.0, 100)) == 4);
  AMT_CHECK(ev_mos_from_psnr(25.0) == 2);
  AMT_CHECK(ev_mos_from_psnr(nextafter(25.0, 100)) == 3);
  AMT_CHECK(ev_mos_from_psnr(20.0) == 1);
  AMT_CHECK(ev_mos_from_psnr(nextafter(20.0, 100)) == 2);
  AMT_CHECK(ev_mos_from_psnr(EV_PSNR_CAP_DB) == 5);
  AMT_CHECK(ev_mos_from_psnr(0.0) == 1);
}

static void test_mos_stats_and_miv(void)
{
  /* 10 frames: 4 at class 5, 3 at class 4, 3 at class 2 (frames 6..8 within a window of 4) */
  double p[10] = { 40, 40, 40, 40, 35, 35, 22, 22, 22, 35 };
  ev_mos_stats s;
  ev_mos_compute(p, NULL, 10, 4, &s);
  AMT_NEAR(s.share[5], 0.4, 1e-12);
  AMT_NEAR(s.share[4], 0.3, 1e-12);
  AMT_NEAR(s.share[2], 0.3, 1e-12);
  AMT_NEAR(s.mean, (4 * 5 + 3 * 4 + 3 * 2) / 10.0, 1e-12);
  AMT_NEAR(s.miv_worst, 75.0, 1e-12);   /* frames 5..8 or 6..9: 3 of 4 below 4 */
  AMT_CHECK(s.miv_window_start == 5);
  /* a reference that is as bad as the receiver: nothing is "below the reference" */
  ev_mos_compute(p, p, 10, 4, &s);
  AMT_NEAR(s.miv_worst, 0.0, 1e-12);
}

static void test_psnr_cap_and_sse(void)
{
  AMT_NEAR(ev_psnr_from_mse(0.0, 8), EV_PSNR_CAP_DB, 0);
  AMT_NEAR(ev_psnr_from_mse(1.0, 8), 20 * log10(255.0), 1e-9);
  AMT_NEAR(ev_psnr_from_mse(1.0, 10), 20 * log10(1023.0), 1e-9);
  AMT_NEAR(ev_psnr_from_mse(1e-12, 8), EV_PSNR_CAP_DB, 0);   /* above the cap: capped */
  /* SSE over 40000 samples (past the 16384-sample uint32 chunk), every difference 255 */
  enum { N = 40000 };
  uint8_t *a = calloc(N, 1), *b = malloc(N);
  memset(b, 255, N);
  AMT_CHECK(ev_plane_sse(a, b, 200, 200, 1) == (uint64_t)N * 255 * 255);
  uint16_t *c = calloc(N, 2), *d = malloc(N * 2);
  for (int i = 0; i < N; i++) d[i] = 1023;
  AMT_CHECK(ev_plane_sse((uint8_t *)c, (uint8_t *)d, 200, 200, 2) == (uint64_t)N * 1023 * 1023);
  AMT_NEAR(ev_plane_ssim(a, a, 200, 200, 1, 255), 1.0, 1e-12);
  AMT_CHECK(ev_plane_ssim(a, b, 200, 200, 1, 255) < 0.01);
  free(a); free(b); free(c); free(d);
}

/* frames with send times k*40 ms and the given arrival offsets (NaN = lost) */
static ev_frame *frames(size_t n, const double *delay)
{
  ev_frame *f = calloc(n, sizeof *f);
  for (size_t k = 0; k < n; k++) {
    f[k].type = 'P'; f[k].packets = 1; f[k].send = 0.040 * k;
    f[k].arrival = isnan(delay[k]) ? NAN : f[k].send + delay[k];
    f[k].decoded = !isnan(delay[k]);
    f[k].status = isnan(delay[k]) ? EV_FRAME_LOST : EV_FRAME_OK;
  }
  return f;
}

static void test_jitter(void)
{
  /* eq. 3: J = (A_i - A_{i-1}) - (G_i - G_{i-1}); eq. 4 sums it over complete frames */
  AMT_NEAR(ev_interframe_jitter(1.0, 0.9, 1.05, 0.94), 0.01, 1e-12);
  double d[5] = { 0.02, 0.03, NAN, 0.05, 0.02 };
  ev_frame *f = frames(5, d);
  ev_frames_jitter(f, 5);
  AMT_CHECK(isnan(f[0].jitter));
  AMT_NEAR(f[1].jitter, 0.01, 1e-12);
  AMT_CHECK(isnan(f[2].jitter) && isnan(f[2].cumjitter));
  AMT_NEAR(f[3].jitter, 0.02, 1e-12);         /* against frame 1, the previous complete one */
  AMT_NEAR(f[4].jitter, -0.03, 1e-12);
  AMT_NEAR(f[4].cumjitter, 0.0, 1e-12);       /* CJ_k = delay_k - delay_0 */
  AMT_NEAR(f[3].cumjitter, 0.03, 1e-12);
  free(f);
}

static void test_schedule_without_delay(void)
{
  double d[6] = { NAN, 0.02, NAN, 0.5, 0.02, 0.02 };
  ev_frame *f = frames(6, d);
  ev_playout_schedule(f, 6, -1);
  AMT_CHECK(f[0].shown == -1);                /* nothing yet: black */
  AMT_CHECK(f[1].shown == 1);
  AMT_CHECK(f[2].shown == 1);                 /* lost: freeze */
  AMT_CHECK(f[3].shown == 3 && f[3].status == EV_FRAME_OK);  /* no play-out limit: never late */
  AMT_CHECK(f[5].shown == 5);
  free(f);
}

static void test_schedule_playout(void)
{
  /* pd 150 ms, frame k sent at 40k ms, so slot S_k = 40k + 150 ms.
   *  frame 2 arrives at 80 + 180 = 260 ms > S_2 = 230: late; visible from slot 3 (S_3 = 270), so
   *    slot 2 repeats frame 1 and slot 3 shows the late frame 2 (it replaces the frozen picture);
   *  frame 3 arrives at 120 + 200 = 320 > S_3: late; visible from slot 5 (S_5 = 350), slot 4
   *    still shows 2; at slot 5 frame 5 (on time) is newer: frame 3 is never shown;
   *  frame 4 arrives at 160 + 300 = 460 > S_6 = 390: never shown. */
  double d[7] = { 0.02, 0.02, 0.18, 0.20, 0.30, 0.02, 0.02 };
  ev_frame *f = frames(7, d);
  ev_playout_schedule(f, 7, 0.150);
  AMT_CHECK(f[0].shown == 0 && f[0].status == EV_FRAME_OK);
  AMT_CHECK(f[1].shown == 1 && f[1].status == EV_FRAME_OK);
  AMT_CHECK(f[2].shown == 1 && f[2].status == EV_FRAME_LATE);
  AMT_CHECK(f[3].shown == 2 && f[3].status == EV_FRAME_LATE);
  AMT_CHECK(f[4].shown == 2 && f[4].status == EV_FRAME_LATE);
  AMT_CHECK(f[5].shown == 5 && f[5].status == EV_FRAME_OK);
  AMT_CHECK(f[6].shown == 6);
  ev_net_summary s = { 0 };
  ev_net_summarize(f, 7, NULL, 0, NULL, &s);
  AMT_CHECK(s.frames_late == 3);
  AMT_CHECK(s.frames_never_shown == 2);
  AMT_CHECK(s.frames_frozen == 3);
  /* one freeze: slots 2-4, 3 slots x 40 ms */
  AMT_CHECK(s.freezes == 1);
  AMT_NEAR(s.freeze_max, 0.120, 1e-9);
  AMT_NEAR(s.freeze_p95, 0.120, 1e-9);
  AMT_NEAR(s.freeze_total, 0.120, 1e-9);
  /* frame 5 did not decode: the newest usable frame at slot 5 is the late frame 3 */
  f[5].decoded = false;
  ev_playout_schedule(f, 7, 0.150);
  AMT_CHECK(f[5].shown == 3);
  AMT_CHECK(f[6].shown == 6);
  /* now slots 2-5 repeat (1, 2, 2, 3): one freeze of 4 slots */
  ev_net_summarize(f, 7, NULL, 0, NULL, &s);
  AMT_CHECK(s.freezes == 1);
  AMT_NEAR(s.freeze_max, 0.160, 1e-9);
  /* two freezes (slot 0 black, slots 2-5), the p95 of 2 runs by nearest rank is the longer */
  f[0].shown = -1;
  ev_net_summarize(f, 7, NULL, 0, NULL, &s);
  AMT_CHECK(s.freezes == 2);
  AMT_NEAR(s.freeze_p95, 0.160, 1e-9);
  AMT_NEAR(s.freeze_total, 0.200, 1e-9);
  free(f);
}

static char *write_tmp(const char *text)
{
  char *p = strdup("/tmp/evalvid-unit-XXXXXX");
  int fd = mkstemp(p);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) abort();
  close(fd);
  return p;
}

static void test_trace_errors(void)
{
  char err[512], want[600];
  ev_sd_pkt *sd; size_t n;
  char *p = write_tmp("1.0 id 5 udp 100 0 I\n\n1.1 id 6 udp 100 0 X\n");
  AMT_CHECK(ev_read_sd(p, &sd, &n, err, sizeof err) == -1);
  snprintf(want, sizeof want, "%s:3:", p);
  AMT_CHECK(strstr(err, want) != NULL);
  unlink(p); free(p);
  p = write_tmp("# comment\n1.0 id 5 udp 100 0 I\n1.1 id 6 tcp 100 0 P\n");
  AMT_CHECK(ev_read_sd(p, &sd, &n, err, sizeof err) == -1);
  snprintf(want, sizeof want, "%s:3:", p);
  AMT_CHECK(strstr(err, want) != NULL);
  unlink(p); free(p);
  ev_rd_pkt *rd;
  p = write_tmp("1.0 id 5 udp 100\n1.0 id -5 udp 100\n");
  AMT_CHECK(ev_read_rd(p, &rd, &n, err, sizeof err) == -1);
  snprintf(want, sizeof want, "%s:2:", p);
  AMT_CHECK(strstr(err, want) != NULL);
  unlink(p); free(p);
  /* a trace cut off mid-line by a killed writer: the unterminated last line is ignored */
  p = write_tmp("1.0 id 5 udp 100 0 I\n1.1 id 6 udp 1");
  AMT_CHECK(ev_read_sd(p, &sd, &n, err, sizeof err) == 0 && n == 1);
  free(sd); unlink(p); free(p);
  /* EvalVid's explicit loss lines are accepted and count as not received */
  p = write_tmp("1.0 id 5 udp 100\n1.1 id 6 lost 9999\n");
  AMT_CHECK(ev_read_rd(p, &rd, &n, err, sizeof err) == 0 && n == 1);
  free(rd); unlink(p); free(p);
}

static void test_match_arrivals(void)
{
  /* wide ids above 2^32, packets reordered and duplicated on arrival */
  uint64_t base = 0xABCD1234ull << 32;
  ev_sd_pkt sd[3] = { { 1.00, base + 1, 100, 0, 'I', 1 }, { 1.01, base + 2, 100, 0, 'I', 2 },
                      { 1.04, base + 3, 100, 1, 'P', 3 } };
  ev_rd_pkt rd[4] = { { 1.06, base + 3, 100, 1 }, { 1.03, base + 2, 100, 2 },
                      { 1.02, base + 2, 100, 3 }, { 1.05, base + 3, 100, 4 } };
  double arr[3];
  size_t dup = 0;
  char err[512];
  AMT_CHECK(ev_match_arrivals(sd, 3, rd, 4, "sd.txt", "rd.txt", arr, &dup, err, sizeof err) == 0);
  AMT_CHECK(isnan(arr[0]));
  AMT_NEAR(arr[1], 1.02, 1e-12);   /* the earliest copy */
  AMT_NEAR(arr[2], 1.05, 1e-12);
  AMT_CHECK(dup == 2);
  size_t nf;
  ev_frame *f = ev_frames_build(sd, 3, arr, &nf);
  AMT_CHECK(nf == 2);
  AMT_CHECK(f[0].status == EV_FRAME_LOST && f[0].packets == 2 && f[0].packets_rx == 1);
  AMT_CHECK(f[1].status == EV_FRAME_OK);
  AMT_NEAR(f[1].delay, 0.01, 1e-9);
  free(f);
  /* an id of another stream */
  ev_rd_pkt bad[2] = { { 1.02, base + 2, 100, 1 }, { 1.03, base + 99, 100, 7 } };
  AMT_CHECK(ev_match_arrivals(sd, 3, bad, 2, "sd.txt", "rd.txt", arr, &dup, err, sizeof err) == -1);
  AMT_CHECK(strstr(err, "rd.txt:7:") != NULL);
  /* duplicate ids in the sender dump */
  sd[2].id = base + 1;
  AMT_CHECK(ev_match_arrivals(sd, 3, rd, 0, "sd.txt", "rd.txt", arr, &dup, err, sizeof err) == -1);
  AMT_CHECK(strstr(err, "sd.txt:3:") != NULL);
}

static void test_h264_split(void)
{
  /* SPS, PPS, IDR slice (first_mb 0), IDR slice (first_mb 1), P slice (first_mb 0, slice_type 0),
   * P slice (first_mb 2), AUD, B slice (slice_type 1 -> ue 010). Bits after the header byte:
   * first_mb ue + slice_type ue. ue(0) = 1, ue(1) = 010, ue(2) = 011, ue(5) = 00110, ue(7) = 0001000 */
  static const uint8_t s[] = {
    0, 0, 0, 1, 0x67, 0x42, 0x00, 0x1e,       /* SPS */
    0, 0, 0, 1, 0x68, 0xce, 0x38, 0x80,       /* PPS */
    0, 0, 1, 0x65, 0x88, 0x80,                /* IDR: first_mb 0 (1), slice_type 7 (0001000) */
    0, 0, 1, 0x65, 0x44, 0x40,                /* IDR: first_mb 1 (010), slice_type 7 */
    0, 0, 1, 0x41, 0x9a, 0x00,                /* P: first_mb 0 (1), slice_type 5 (00110) */
    0, 0, 1, 0x41, 0x64, 0xc0,                /* P: first_mb 2 (011), slice_type 5 */
    0, 0, 0, 1, 0x09, 0xf0,                   /* AUD */
    0, 0, 1, 0x01, 0xa0, 0x00,                /* B: first_mb 0 (1), slice_type 1 (010) */
  };
  ev_au *au;
  char err[256];
  long n = ev_h264_split(s, sizeof s, &au, err, sizeof err);
  AMT_CHECK(n == 3);
  if (n == 3) {
    AMT_CHECK(au[0].off == 0 && au[0].type == 'I');
    AMT_CHECK(au[1].off == 28 && au[1].type == 'P');
    AMT_CHECK(au[2].off == 40 && au[2].type == 'B');
    AMT_CHECK(au[0].len + au[1].len + au[2].len == sizeof s);
    /* slices only: AU 0 keeps its two IDR slices (12 bytes), AU 2 its B slice without the AUD */
    uint8_t out[sizeof s];
    AMT_CHECK(ev_h264_slices_only(s + au[0].off, au[0].len, out) == 12);
    AMT_CHECK(out[3] == 0x65 && out[9] == 0x65);
    AMT_CHECK(ev_h264_slices_only(s + au[2].off, au[2].len, out) == 6 && out[3] == 0x01);
  }
  free(au);
  static const uint8_t junk[] = { 1, 2, 3, 0, 0, 1, 0x65 };
  AMT_CHECK(ev_h264_split(junk, sizeof junk, &au, err, sizeof err) == -1);
}

static void test_h264_received(void)
{
  /* SPS (4-byte start code), slice A and slice B of 10 NAL bytes each: 20 slice bytes */
  static const uint8_t s[] = {
    0, 0, 0, 1, 0x67, 0x42, 0x00, 0x1e,
    0, 0, 1, 0x41, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
    0, 0, 1, 0x41, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9,
  };
  uint8_t out[sizeof s];
  size_t cut;
  ev_pkt_part hlost[1] = { { 2, false } };   /* a lost header packet of another size */
  /* one slice per packet, all arrived: the AU unchanged */
  ev_pkt_part two[2] = { { 10, true }, { 10, true } };
  AMT_CHECK(ev_h264_received(s, sizeof s, two, 2, NULL, 0, out, &cut) == sizeof s && cut == 0);
  AMT_CHECK(memcmp(out, s, sizeof s) == 0);
  /* slice B's packet lost: SPS + slice A */
  two[1].got = false;
  AMT_CHECK(ev_h264_received(s, sizeof s, two, 2, NULL, 0, out, &cut) == 21 && cut == 10);
  AMT_CHECK(memcmp(out, s, 21) == 0);
  /* slice A's packet lost, headers lost: slice B alone, with its start code */
  two[0].got = false; two[1].got = true;
  AMT_CHECK(ev_h264_received(s, sizeof s, two, 2, hlost, 1, out, &cut) == 13 && cut == 10);
  AMT_CHECK(memcmp(out, s + 21, 13) == 0);
  /* four pieces of 5, the second lost: slice A cut after its 5th byte, slice B whole */
  ev_pkt_part four[4] = { { 5, true }, { 5, false }, { 5, true }, { 5, true } };
  AMT_CHECK(ev_h264_received(s, sizeof s, four, 4, NULL, 0, out, &cut) == 8 + 8 + 13 && cut == 5);
  AMT_CHECK(memcmp(out, s, 16) == 0 && memcmp(out + 16, s + 21, 13) == 0);
  /* payloads 30 and 10 share the 20 slice bytes as 15 and 5: losing the second cuts B to 5 bytes */
  ev_pkt_part uneven[2] = { { 30, true }, { 10, false } };
  AMT_CHECK(ev_h264_received(s, sizeof s, uneven, 2, NULL, 0, out, &cut) == 21 + 8 && cut == 5);
  AMT_CHECK(memcmp(out, s, 29) == 0);
  /* header NAL units by size: the SPS (4 bytes) travels in a 4-byte header packet */
  two[0].got = two[1].got = true;
  ev_pkt_part h1[2] = { { 2, false }, { 4, true } };    /* its packet arrived, another was lost */
  AMT_CHECK(ev_h264_received(s, sizeof s, two, 2, h1, 2, out, &cut) == sizeof s && cut == 0);
  ev_pkt_part h2[3] = { { 4, false }, { 2, true }, { 4, true } };   /* a lost copy, another arrived */
  AMT_CHECK(ev_h264_received(s, sizeof s, two, 2, h2, 3, out, &cut) == sizeof s);
  ev_pkt_part h3[2] = { { 4, false }, { 2, true } };    /* its only packet lost */
  AMT_CHECK(ev_h264_received(s, sizeof s, two, 2, h3, 2, out, &cut) == 26 && memcmp(out, s + 8, 26) == 0);
  /* nothing arrived: no slice left */
  ev_pkt_part none[1] = { { 20, false } };
  AMT_CHECK(ev_h264_received(s, sizeof s, none, 1, hlost, 1, out, &cut) == 0 && cut == 20);
}

static void test_header_packets(void)
{
  /* frame 0: H, I, I; frame 1: H, P; frame 2: H only (parameter sets alone) */
  ev_sd_pkt sd[6] = { { 1.00, 1, 30, 0, 'H', 1 }, { 1.00, 2, 1200, 0, 'I', 2 }, { 1.00, 3, 900, 0, 'I', 3 },
                      { 1.04, 4, 30, 1, 'H', 4 }, { 1.04, 5, 700, 1, 'P', 5 }, { 1.08, 6, 30, 2, 'H', 6 } };
  double arr[6] = { NAN, 1.02, 1.03, 1.06, NAN, NAN };
  size_t n;
  ev_frame *f = ev_frames_build(sd, 6, arr, &n);
  AMT_CHECK(n == 3);
  AMT_CHECK(f[0].status == EV_FRAME_OK && f[0].hdr_lost && f[0].type == 'I');  /* only its H packet lost */
  AMT_NEAR(f[0].delay, 0.03, 1e-9);
  AMT_CHECK(f[1].status == EV_FRAME_LOST && !f[1].hdr_lost);                   /* its P packet lost */
  AMT_CHECK(f[2].status == EV_FRAME_LOST);                                      /* H-only frame, lost */
  ev_net_summary s = { 0 };
  ev_net_summarize(f, n, sd, 6, arr, &s);
  AMT_CHECK(s.frames_hdr_lost == 1);
  AMT_CHECK(s.frames_lost[EV_TYPE_ALL] == 2);
  AMT_CHECK(s.packets_lost[EV_TYPE_H] == 2 && s.packets_lost[EV_TYPE_P] == 1);
  free(f);
}

static void test_throughput_bins(void)
{
  /* 1000 bytes at 0.2 s, 500 at 0.9 s, 700 at 2.5 s, one lost packet; 1 s bins from 0 */
  double t[4] = { 0.2, 0.9, NAN, 2.5 };
  uint32_t sz[4] = { 1000, 500, 9999, 700 };
  size_t nb = 0;
  uint64_t *b = ev_throughput_bins(t, sz, 4, 0.0, 1.0, &nb);
  AMT_CHECK(b && nb == 3);
  if (b && nb == 3) AMT_CHECK(b[0] == 1500 && b[1] == 0 && b[2] == 700);
  free(b);
  double far[2] = { 0.0, 1e12 };   /* a corrupt time: no 10^12 bins */
  AMT_CHECK(ev_throughput_bins(far, sz, 2, 0.0, 1.0, &nb) == NULL);
}

int main(void)
{
  AMT_RUN(test_mos_boundaries);
  AMT_RUN(test_mos_stats_and_miv);
  AMT_RUN(test_psnr_cap_and_sse);
  AMT_RUN(test_jitter);
  AMT_RUN(test_schedule_without_delay);
  AMT_RUN(test_schedule_playout);
  AMT_RUN(test_trace_errors);
  AMT_RUN(test_match_arrivals);
  AMT_RUN(test_h264_split);
  AMT_RUN(test_h264_received);
  AMT_RUN(test_header_packets);
  AMT_RUN(test_throughput_bins);
  return amt_summary();
}
