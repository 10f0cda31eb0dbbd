/* evalvid-frames - network metrics of one receiver from the sender and receiver dumps:
 * per-frame table, loss by frame type, delay, jitter (papers/002 eq. 3-4), play-out schedule,
 * throughput over time. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ev_receiver.h"

static void usage(FILE *f)
{
  fprintf(f,
"usage: evalvid-frames --sd SD.txt --rd RD.txt [options]\n"
"  --st FILE              video trace, only for a five-column (EvalVid) sender dump\n"
"  -p, --playout-delay MS absolute play-out delay (default: none)\n"
"  -o, --frames-csv FILE  per-frame table: frame,type,bytes,packets,packets_rx,send_s,arrival_s,\n"
"                         delay_s,jitter_s,cumjitter_s,slot_s,status,decoded,shown,hdr_lost\n"
"  --summary FILE         one-row CSV of the summary (columns as printed)\n"
"  --rate FILE            throughput over time: time_s,sent_bps,recv_bps (bins from the first\n"
"                         sent packet)\n"
"  --bin S                bin width for --rate in seconds (default 1)\n"
"A frame is lost if any of its picture packets (type I/P/B) is lost; header-only packets (type H)\n"
"do not make it lost (hdr_lost). Its arrival is its last packet's (first copy of a duplicate).\n"
"Jitter J_i and cumulative jitter CJ_k run over the complete frames. Here every\n"
"complete frame counts as decodable (evalvid-rebuild refines 'decoded' and 'shown').\n");
}

#define DIE(...) do { fprintf(stderr, "evalvid-frames: " __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

int main(int argc, char **argv)
{
  const char *sdp = NULL, *rdp = NULL, *stp = NULL, *csvp = NULL, *sump = NULL, *ratep = NULL;
  double pd = -1, bin = 1;
  static const struct option opts[] = {
    { "sd", 1, 0, 'S' }, { "rd", 1, 0, 'R' }, { "st", 1, 0, 'T' }, { "playout-delay", 1, 0, 'p' },
    { "frames-csv", 1, 0, 'o' }, { "summary", 1, 0, 'u' }, { "rate", 1, 0, 'r' }, { "bin", 1, 0, 'b' },
    { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
  int c;
  char *e;
  while ((c = getopt_long(argc, argv, "p:o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'S': sdp = optarg; break;
    case 'R': rdp = optarg; break;
    case 'T': stp = optarg; break;
    case 'p': pd = strtod(optarg, &e) / 1000.0; if (*e || pd < 0) DIE("bad play-out delay '%s' (ms >= 0)", optarg); break;
    case 'o': csvp = optarg; break;
    case 'u': sump = optarg; break;
    case 'r': ratep = optarg; break;
    case 'b': bin = strtod(optarg, &e); if (*e || !(bin > 0)) DIE("bad bin '%s'", optarg); break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind != argc || !sdp || !rdp) { usage(stderr); return 2; }
  char err[1024];
  ev_receiver r;
  if (ev_receiver_load(&r, sdp, rdp, stp, err, sizeof err)) DIE("%s", err);
  ev_playout_schedule(r.f, r.n, pd);
  ev_net_summary s = { .duplicates = r.duplicates };
  ev_net_summarize(r.f, r.n, r.sd, r.nsd, r.arrival, &s);

  if (csvp) {
    FILE *f = fopen(csvp, "w");
    if (!f) DIE("%s: %s", csvp, strerror(errno));
    ev_frames_write_csv(f, r.f, r.n);
    if (fclose(f)) DIE("%s: write failed", csvp);
  }
  double thr = s.duration > 0 ? 8.0 * (double)s.bytes_received / s.duration : NAN;
  static const char tn[] = "HIPBA";
  /* the summary, one name=value per column, printed and (optionally) as CSV */
  char names[2048] = "", vals[2048] = "";
#define COL(name, fmt, v) do { size_t ln_ = strlen(names), lv_ = strlen(vals); \
  snprintf(names + ln_, sizeof names - ln_, "%s%s", ln_ ? "," : "", name); \
  snprintf(vals + lv_, sizeof vals - lv_, "%s" fmt, lv_ ? "," : "", v); } while (0)
  COL("frames", "%llu", (unsigned long long)s.frames[EV_TYPE_ALL]);
  COL("frames_lost", "%llu", (unsigned long long)s.frames_lost[EV_TYPE_ALL]);
  COL("frame_loss_pct", "%.4f", s.frames[EV_TYPE_ALL] ? 100.0 * s.frames_lost[EV_TYPE_ALL] / s.frames[EV_TYPE_ALL] : 0.0);
  for (int t = 0; t < EV_TYPE_ALL; t++) {
    char nm[32];
    snprintf(nm, sizeof nm, "frames_%c", tn[t]); COL(nm, "%llu", (unsigned long long)s.frames[t]);
    snprintf(nm, sizeof nm, "frames_lost_%c", tn[t]); COL(nm, "%llu", (unsigned long long)s.frames_lost[t]);
  }
  COL("packets", "%llu", (unsigned long long)s.packets[EV_TYPE_ALL]);
  COL("packets_lost", "%llu", (unsigned long long)s.packets_lost[EV_TYPE_ALL]);
  COL("packet_loss_pct", "%.4f", s.packets[EV_TYPE_ALL] ? 100.0 * s.packets_lost[EV_TYPE_ALL] / s.packets[EV_TYPE_ALL] : 0.0);
  for (int t = 0; t < EV_TYPE_ALL; t++) {
    char nm[32];
    snprintf(nm, sizeof nm, "packets_lost_%c", tn[t]); COL(nm, "%llu", (unsigned long long)s.packets_lost[t]);
  }
  COL("duplicates", "%zu", s.duplicates);
  COL("frames_hdr_lost", "%llu", (unsigned long long)s.frames_hdr_lost);
  COL("frames_late", "%llu", (unsigned long long)s.frames_late);
  COL("frames_never_shown", "%llu", (unsigned long long)s.frames_never_shown);
  COL("slots_frozen", "%llu", (unsigned long long)s.frames_frozen);
  COL("freezes", "%llu", (unsigned long long)s.freezes);
  COL("freeze_max_s", "%.6f", s.freeze_max);
  COL("freeze_p95_s", "%.6f", s.freeze_p95);
  COL("frozen_s", "%.6f", s.freeze_total);
  COL("delay_mean_s", "%.6f", s.delay_mean);
  COL("delay_min_s", "%.6f", s.delay_min);
  COL("delay_max_s", "%.6f", s.delay_max);
  COL("jitter_mean_abs_s", "%.6f", s.jitter_mean_abs);
  COL("cumjitter_max_s", "%.6f", s.cumjitter_max);
  COL("cumjitter_last_s", "%.6f", s.cumjitter_last);
  COL("bytes_sent", "%llu", (unsigned long long)s.bytes_sent);
  COL("bytes_received", "%llu", (unsigned long long)s.bytes_received);
  COL("duration_s", "%.6f", s.duration);
  COL("throughput_bps", "%.1f", thr);
  if (sump) {
    FILE *f = fopen(sump, "w");
    if (!f) DIE("%s: %s", sump, strerror(errno));
    fprintf(f, "%s\n%s\n", names, vals);
    if (fclose(f)) DIE("%s: write failed", sump);
  }
  char *np = names, *vp = vals, *nt, *vt;
  while ((nt = strsep(&np, ",")) && (vt = strsep(&vp, ","))) printf("%-20s %s\n", nt, vt);

  if (ratep) {
    double t0 = INFINITY;
    for (size_t i = 0; i < r.nsd; i++) if (r.sd[i].t < t0) t0 = r.sd[i].t;
    double *st = malloc(sizeof *st * r.nsd), *rt = malloc(sizeof *rt * r.nsd);
    uint32_t *ss = malloc(sizeof *ss * r.nsd), *rs = malloc(sizeof *rs * r.nsd);
    if (!st || !rt || !ss || !rs) DIE("out of memory");
    for (size_t i = 0; i < r.nsd; i++) { st[i] = r.sd[i].t; ss[i] = r.sd[i].size; }
    /* received throughput counts each packet once (duplicates excluded) */
    size_t nr = 0;
    for (size_t i = 0; i < r.nsd; i++) if (!isnan(r.arrival[i])) { rt[nr] = r.arrival[i]; rs[nr] = r.sd[i].size; nr++; }
    size_t nbs, nbr;
    uint64_t *bs = ev_throughput_bins(st, ss, r.nsd, t0, bin, &nbs);
    uint64_t *br = ev_throughput_bins(rt, rs, nr, t0, bin, &nbr);
    if (!bs || !br) DIE("%s: %g s bins over the span of the dumps: too many (a corrupt time?)", ratep, bin);
    FILE *f = fopen(ratep, "w");
    if (!f) DIE("%s: %s", ratep, strerror(errno));
    fprintf(f, "time_s,sent_bps,recv_bps\n");
    size_t nb = nbs > nbr ? nbs : nbr;
    for (size_t k = 0; k < nb; k++)
      fprintf(f, "%.3f,%.1f,%.1f\n", k * bin, (k < nbs ? bs[k] : 0) * 8.0 / bin, (k < nbr ? br[k] : 0) * 8.0 / bin);
    if (fclose(f)) DIE("%s: write failed", ratep);
    free(st); free(rt); free(ss); free(rs); free(bs); free(br);
  }
  ev_receiver_free(&r);
  return 0;
}
