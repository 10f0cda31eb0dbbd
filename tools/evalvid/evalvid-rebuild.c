/* evalvid-rebuild - the video one receiver saw: rebuilds the bitstream of the frames it got,
 * decodes it (real error propagation), applies the play-out schedule and writes exactly one
 * picture per sent frame (freezes explicit). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ev_decode.h"
#include "ev_progress.h"
#include "ev_receiver.h"

static void usage(FILE *f)
{
  fprintf(f,
"usage: evalvid-rebuild --sd SD.txt [--rd RD.txt] --h264 SENT.h264 (--size WxH | --ref-json F)\n"
"                       -o DIST.yuv [options]\n"
"Rebuilds what one receiver displayed, one picture per frame of the sender dump:\n"
"  1. frames whose picture packets all arrived are cut from SENT.h264 (frame i = access unit i =\n"
"     FRAME i of the dump); a frame with any lost picture packet (type I/P/B) is lost (no partial\n"
"     frames are decoded); a frame that lost only header packets (type H: SPS/PPS/SEI/AUD) is\n"
"     decoded from its slices alone, with the parameter sets the decoder already has;\n"
"  2. they are decoded in frame order by GStreamer (h264parse ! avdec_h264) with PTS = i * d, and\n"
"     each output picture is mapped back to its frame by its PTS, so errors propagate until the\n"
"     next key frame exactly as the decoder propagates them;\n"
"  3. the play-out schedule picks the picture shown at each frame slot; a slot with no new usable\n"
"     frame repeats the last shown picture (freeze), black before the first one.\n"
"  --sd FILE              sender dump\n"
"  --rd FILE              receiver dump (omit: a lossless receiver, the encoder-only reference)\n"
"  --st FILE              video trace, only for a five-column (EvalVid) sender dump\n"
"  --h264 FILE            the stream as sent (Annex B, one access unit per frame)\n"
"  -s, --size WxH         picture size; -f, --format FMT pixel format (default yuv420p)\n"
"  --ref-json FILE        read width, height and format from ref.json instead\n"
"  -p, --playout-delay MS absolute play-out delay (default: none, every frame shown at its slot)\n"
"  -o FILE                rebuilt raw video (exactly as many frames as the dump)\n"
"  --frames-csv FILE      per-frame table (network, schedule, decoded, shown)\n"
"  --conceal              decode what arrived of damaged frames too (the concealed view): the\n"
"                         bytes their packets carried, each slice NAL unit up to its first lost\n"
"                         byte, header NAL units matched to header packets by size, so the\n"
"                         decoder conceals the rest; a damaged frame is shown from the\n"
"                         arrival of its last packet that arrived; decoded on one thread\n"
"                         (FFmpeg's concealment depends on the thread count)\n"
"  --conceal-csv FILE     per frame: frame,fed,fed_bytes,cut_bytes,decoded,shown (fed: none,\n"
"                         whole, headers = whole picture but header NAL units lost, partial =\n"
"                         damaged; implies --conceal)\n"
"  --fed-h264 FILE        write the bytes fed to the decoder, in frame order (Annex B)\n"
"  --progress             progress lines on stderr (at most one every 2 s)\n");
}

/* Minimal reader for the flat ref.json the testbed writes: "key": number or "key": "string". */
static int json_get(const char *js, const char *key, char *val, size_t vlen)
{
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\"", key);
  const char *p = strstr(js, pat);
  if (!p) return -1;
  p = strchr(p + strlen(pat), ':');
  if (!p) return -1;
  p++;
  while (*p == ' ' || *p == '\t' || *p == '\n') p++;
  size_t k = 0;
  if (*p == '"') { p++; while (*p && *p != '"' && k + 1 < vlen) val[k++] = *p++; }
  else while (*p && strchr("0123456789.-", *p) && k + 1 < vlen) val[k++] = *p++;
  val[k] = 0;
  return k ? 0 : -1;
}

typedef struct { int fd; const ev_yuv_geom *g; bool *decoded; size_t n; int progress; ev_progress prog; } store;

static int store_picture(size_t i, const uint8_t *data, void *user)
{
  store *s = user;
  if (pwrite(s->fd, data, s->g->frame_bytes, (off_t)(i * s->g->frame_bytes)) != (ssize_t)s->g->frame_bytes) return 1;
  s->decoded[i] = true;
  if (s->progress) ev_progress_report(&s->prog, "evalvid-rebuild", "decoded", i + 1, s->n);
  return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END); long l = ftell(f); fseek(f, 0, SEEK_SET);
  uint8_t *b = l >= 0 ? malloc((size_t)l + 1) : NULL;
  if (b && fread(b, 1, (size_t)l, f) != (size_t)l) { free(b); b = NULL; }
  fclose(f);
  if (b) { b[l] = 0; *len = (size_t)l; }
  return b;
}

typedef struct { int32_t frame; uint64_t id; size_t idx; } pkt_ref;

static int cmp_pkt(const void *a, const void *b)
{
  const pkt_ref *x = a, *y = b;
  if (x->frame != y->frame) return x->frame < y->frame ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The concealed view: every frame that lost packets but got some of its picture is fed what its
 * packets carried (ev_h264_received): given[i], feed[i] = EV_FEED_BYTES (EV_FEED_AU if that is the
 * whole AU), cut[i] = slice bytes missing; a damaged frame's arrival (for the schedule) is the
 * last arrival of its packets. HEADERS_ONLY (the frozen view): only frames whose picture arrived
 * whole and that lost header packets, fed with the header NAL units whose packets did arrive (a
 * lost delimiter must not drop the SPS/PPS that came). Returns the number of damaged frames fed
 * (cut > 0), -1 if out of memory. */
static long damaged_frames(ev_receiver *r, const uint8_t *stream, const ev_au *au, uint8_t *feed,
                           ev_chunk *given, size_t *cut, bool headers_only)
{
  pkt_ref *p = malloc(r->nsd * sizeof *p);
  ev_pkt_part *part = malloc(r->nsd * sizeof *part), *hpart = malloc(r->nsd * sizeof *hpart);
  long nd = -1;
  if (!p || !part || !hpart) goto out;
  for (size_t i = 0; i < r->nsd; i++) p[i] = (pkt_ref){ r->sd[i].frame, r->sd[i].id, i };
  qsort(p, r->nsd, sizeof *p, cmp_pkt);          /* by frame, then sequence (the wide id) */
  nd = 0;
  for (size_t a = 0, b; a < r->nsd; a = b) {
    size_t fr = (size_t)p[a].frame, np = 0, nh = 0;
    double last = -INFINITY;
    bool any = false, lost = false, pic_lost = false;
    for (b = a; b < r->nsd && p[b].frame == p[a].frame; b++) {
      const ev_sd_pkt *q = &r->sd[p[b].idx];
      double t = r->arrival[p[b].idx];
      ev_pkt_part x = { q->size > 12 ? q->size - 12 : 0, !isnan(t) };
      if (x.got && t > last) last = t;
      lost |= !x.got;
      if (q->type == 'H') { hpart[nh++] = x; continue; }
      part[np++] = x;
      any |= x.got;
      pic_lost |= !x.got;
    }
    if (fr >= r->n || !lost || !any) continue;   /* whole, or nothing of its picture arrived */
    if (headers_only && pic_lost) continue;     /* the frozen view: a frame with a gap is lost */
    uint8_t *buf = malloc(au[fr].len ? au[fr].len : 1);
    if (!buf) { nd = -1; goto out; }
    size_t len = ev_h264_received(stream + au[fr].off, au[fr].len, part, np, hpart, nh, buf, &cut[fr]);
    bool slice = false;                          /* anything of a picture left? */
    for (size_t k = 0; k + 3 < len && !slice; k++)
      if (buf[k] == 0 && buf[k + 1] == 0 && buf[k + 2] == 1) { int t = buf[k + 3] & 0x1f; slice = t >= 1 && t <= 5; }
    if (!slice) { free(buf); continue; }
    if (len == au[fr].len) { free(buf); feed[fr] = EV_FEED_AU; continue; }   /* lost copies only */
    given[fr] = (ev_chunk){ buf, len };
    feed[fr] = EV_FEED_BYTES;
    if (cut[fr]) { r->f[fr].arrival = last; nd++; }
  }
out:
  free(p); free(part); free(hpart);
  return nd;
}

#define DIE(...) do { fprintf(stderr, "evalvid-rebuild: " __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

int main(int argc, char **argv)
{
  const char *sdp = NULL, *rdp = NULL, *stp = NULL, *h264 = NULL, *outp = NULL, *csvp = NULL, *refjson = NULL;
  const char *fmtname = "yuv420p", *ecsvp = NULL, *fedp = NULL;
  int w = 0, h = 0, progress = 0, conceal = 0;
  double pd = -1;
  char fmtbuf[32];
  static const struct option opts[] = {
    { "sd", 1, 0, 'S' }, { "rd", 1, 0, 'R' }, { "st", 1, 0, 'T' }, { "h264", 1, 0, 'x' },
    { "size", 1, 0, 's' }, { "format", 1, 0, 'f' }, { "ref-json", 1, 0, 'j' },
    { "playout-delay", 1, 0, 'p' }, { "output", 1, 0, 'o' }, { "frames-csv", 1, 0, 'c' },
    { "progress", 0, 0, 'P' }, { "conceal", 0, 0, 'C' }, { "conceal-csv", 1, 0, 'E' },
    { "fed-h264", 1, 0, 'F' },
    { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
  int c;
  while ((c = getopt_long(argc, argv, "s:f:p:o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'S': sdp = optarg; break;
    case 'R': rdp = optarg; break;
    case 'T': stp = optarg; break;
    case 'x': h264 = optarg; break;
    case 's': if (sscanf(optarg, "%dx%d", &w, &h) != 2) DIE("bad size '%s' (want WxH)", optarg); break;
    case 'f': fmtname = optarg; break;
    case 'j': refjson = optarg; break;
    case 'p': { char *e; pd = strtod(optarg, &e) / 1000.0; if (*e || pd < 0) DIE("bad play-out delay '%s' (ms >= 0)", optarg); break; }
    case 'o': outp = optarg; break;
    case 'c': csvp = optarg; break;
    case 'P': progress = 1; break;
    case 'C': conceal = 1; break;
    case 'E': ecsvp = optarg; conceal = 1; break;
    case 'F': fedp = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind != argc || !sdp || !h264 || !outp || (!refjson && !w)) { usage(stderr); return 2; }
  if (refjson) {
    size_t l; char *js = (char *)slurp(refjson, &l), v[32];
    if (!js) DIE("%s: %s", refjson, strerror(errno));
    if (json_get(js, "width", v, sizeof v) || (w = atoi(v)) <= 0) DIE("%s: no \"width\"", refjson);
    if (json_get(js, "height", v, sizeof v) || (h = atoi(v)) <= 0) DIE("%s: no \"height\"", refjson);
    if (!json_get(js, "format", fmtbuf, sizeof fmtbuf)) fmtname = fmtbuf;
    free(js);
  }
  const ev_yuv_format *fmt = ev_yuv_format_find(fmtname);
  if (!fmt) DIE("unknown format '%s' (known: %s)", fmtname, ev_yuv_format_names());
  ev_yuv_geom g;
  if (ev_yuv_geom_init(&g, fmt, w, h)) DIE("bad size %dx%d", w, h);

  char err[1024];
  ev_receiver r;
  if (ev_receiver_load(&r, sdp, rdp, stp, err, sizeof err)) DIE("%s", err);
  size_t len;
  uint8_t *stream = slurp(h264, &len);
  if (!stream) DIE("%s: %s", h264, strerror(errno));
  ev_au *au;
  long nau = ev_h264_split(stream, len, &au, err, sizeof err);
  if (nau < 0) DIE("%s: %s", h264, err);
  if ((size_t)nau < r.n)
    DIE("%s has %ld access units but %s has %zu frames (not the stream of this dump?)", h264, nau, sdp, r.n);

  /* frame i of the dump must be access unit i: a key frame in the dump is a key frame here */
  for (size_t i = 0; i < r.n; i++)
    if (r.f[i].type == 'I' && au[i].type != 'I')
      DIE("frame %zu is a key frame in %s but access unit %zu of %s is %c: the stream and the dump "
          "are not aligned (not the stream of this dump?)", i, sdp, i, h264, au[i].type);

  /* 1-2: decode the complete frames into a scratch file indexed by frame */
  uint8_t *feed = calloc(r.n, sizeof *feed);
  bool *decoded = calloc(r.n, sizeof *decoded);
  for (size_t i = 0; i < r.n; i++)
    feed[i] = isnan(r.f[i].arrival) ? EV_FEED_NONE : r.f[i].hdr_lost ? EV_FEED_SLICES : EV_FEED_AU;
  ev_chunk *given = calloc(r.n, sizeof *given);
  size_t *cut = calloc(r.n, sizeof *cut);
  long ndamaged = 0;
  if (!feed || !decoded || !given || !cut) DIE("out of memory");
  if ((ndamaged = damaged_frames(&r, stream, au, feed, given, cut, !conceal)) < 0) DIE("out of memory");
  char tmpl[4096];
  snprintf(tmpl, sizeof tmpl, "%s.XXXXXX", outp);
  int fd = mkstemp(tmpl);
  if (fd < 0) DIE("%s: %s", tmpl, strerror(errno));
  unlink(tmpl);
  store st = { fd, &g, decoded, r.n, progress, { ev_progress_now(), ev_progress_now() } };
  long got = ev_decode_h264(stream, au, r.n, feed, given, conceal ? 1 : 0, &g, store_picture, &st, err, sizeof err);
  if (got < 0) DIE("%s: %s", h264, err);

  /* 3: schedule with what really decoded, then one picture per slot */
  for (size_t i = 0; i < r.n; i++) r.f[i].decoded = decoded[i];
  ev_playout_schedule(r.f, r.n, pd);
  FILE *out = fopen(outp, "wb");
  if (!out) DIE("%s: %s", outp, strerror(errno));
  uint8_t *pic = malloc(g.frame_bytes);
  long cur = -2;
  for (size_t k = 0; k < r.n; k++) {
    long s = r.f[k].shown;
    if (s != cur) {
      if (s < 0) ev_yuv_fill_black(pic, &g);
      else if (pread(fd, pic, g.frame_bytes, (off_t)((size_t)s * g.frame_bytes)) != (ssize_t)g.frame_bytes)
        DIE("scratch file: read error");
      cur = s;
    }
    if (fwrite(pic, 1, g.frame_bytes, out) != g.frame_bytes) DIE("%s: write error", outp);
  }
  if (fclose(out)) DIE("%s: write error", outp);
  close(fd);
  if (csvp) {
    FILE *cf = fopen(csvp, "w");
    if (!cf) DIE("%s: %s", csvp, strerror(errno));
    ev_frames_write_csv(cf, r.f, r.n);
    if (fclose(cf)) DIE("%s: write error", csvp);
  }
  if (fedp) {
    FILE *ff = fopen(fedp, "wb");
    if (!ff) DIE("%s: %s", fedp, strerror(errno));
    uint8_t *tmp = malloc(len ? len : 1);
    for (size_t i = 0; i < r.n && tmp; i++) {
      const uint8_t *d = stream + au[i].off;
      size_t l = au[i].len;
      if (feed[i] == EV_FEED_NONE) continue;
      if (feed[i] == EV_FEED_BYTES) { d = given[i].data; l = given[i].len; }
      else if (feed[i] == EV_FEED_SLICES) { l = ev_h264_slices_only(d, l, tmp); d = tmp; }
      if (fwrite(d, 1, l, ff) != l) { free(tmp); DIE("%s: write error", fedp); }
    }
    free(tmp);
    if (fclose(ff)) DIE("%s: write error", fedp);
  }
  if (ecsvp) {
    static const char *fed[] = { "none", "whole", "headers", "headers", "partial" };
    FILE *cf = fopen(ecsvp, "w");
    if (!cf) DIE("%s: %s", ecsvp, strerror(errno));
    fprintf(cf, "frame,fed,fed_bytes,cut_bytes,decoded,shown\n");
    for (size_t i = 0; i < r.n; i++)
      fprintf(cf, "%zu,%s,%zu,%zu,%d,%d\n", i, fed[feed[i] == EV_FEED_BYTES && cut[i] ? 4 : feed[i]],
              feed[i] == EV_FEED_BYTES ? given[i].len : feed[i] == EV_FEED_AU ? au[i].len : 0,
              cut[i], decoded[i] ? 1 : 0, r.f[i].shown);
    if (fclose(cf)) DIE("%s: write error", ecsvp);
  }
  size_t complete = 0, frozen = 0;
  for (size_t i = 0; i < r.n; i++) {
    complete += feed[i] == EV_FEED_AU || feed[i] == EV_FEED_SLICES || (feed[i] == EV_FEED_BYTES && !cut[i]);
    frozen += r.f[i].shown != (int32_t)i;
  }
  if (conceal)
    fprintf(stderr, "evalvid-rebuild: %zu frames, %zu complete, %ld damaged fed, %ld decoded, %zu slots frozen or black\n",
            r.n, complete, ndamaged, got, frozen);
  else
    fprintf(stderr, "evalvid-rebuild: %zu frames, %zu complete, %ld decoded, %zu slots frozen or black\n",
            r.n, complete, got, frozen);
  for (size_t i = 0; i < r.n; i++) free((void *)given[i].data);
  free(given); free(cut);
  free(pic); free(feed); free(decoded); free(stream); free(au);
  ev_receiver_free(&r);
  return 0;
}
