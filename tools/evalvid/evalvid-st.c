/* evalvid-st - the video trace (st) of an encoded stream: one line per frame. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ev_h264.h"
#include "ev_receiver.h"

static void usage(FILE *f)
{
  fprintf(f,
"usage: evalvid-st [--h264 SENT.h264] [--sd SD.txt] [-o ST.txt]\n"
"Writes EvalVid's video trace, one line per frame:\n"
"  frameNo <TAB> type <TAB> sizeBytes <TAB> nPackets <TAB> sendTime\n"
"  --h264 FILE   H.264 Annex B stream, one access unit per frame (frame i = AU i): gives type\n"
"                (I P B, H = parameter sets only) and size (bytes of the AU)\n"
"  --sd FILE     sender dump (TIME id N udp SIZE FRAME TYPE): gives nPackets and sendTime (first\n"
"                packet, seconds from the first packet of the dump); alone it also gives type and\n"
"                size (sum of RTP payloads: SIZE - 12 per packet)\n"
"  -o FILE       output (default stdout)\n"
"With both, the frames of the dump must all exist in the stream (extra trailing AUs, encoded but\n"
"never sent, are listed with 0 packets and a warning).\n");
}

int main(int argc, char **argv)
{
  const char *h264 = NULL, *sdp = NULL, *outp = NULL;
  static const struct option opts[] = { { "h264", 1, 0, 'x' }, { "sd", 1, 0, 's' },
    { "output", 1, 0, 'o' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
  int c;
  while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    if (c == 'x') h264 = optarg;
    else if (c == 's') sdp = optarg;
    else if (c == 'o') outp = optarg;
    else if (c == 'h') { usage(stdout); return 0; }
    else { usage(stderr); return 2; }
  }
  if (optind != argc || (!h264 && !sdp)) { usage(stderr); return 2; }
  char err[512];
  ev_au *au = NULL; long nau = 0;
  if (h264) {
    FILE *f = fopen(h264, "rb");
    if (!f) { fprintf(stderr, "evalvid-st: %s: %s\n", h264, strerror(errno)); return 1; }
    fseek(f, 0, SEEK_END); long len = ftell(f); fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) { fprintf(stderr, "evalvid-st: %s: read error\n", h264); return 1; }
    fclose(f);
    nau = ev_h264_split(buf, (size_t)len, &au, err, sizeof err);
    free(buf);
    if (nau < 0) { fprintf(stderr, "evalvid-st: %s: %s\n", h264, err); return 1; }
  }
  ev_receiver r = { 0 };
  if (sdp && ev_receiver_load(&r, sdp, NULL, NULL, err, sizeof err)) { fprintf(stderr, "evalvid-st: %s\n", err); return 1; }
  if (h264 && sdp && (long)r.n > nau) {
    fprintf(stderr, "evalvid-st: %s has %zu frames but %s only %ld access units (not the stream of this dump?)\n",
            sdp, r.n, h264, nau);
    return 1;
  }
  if (h264 && sdp && (long)r.n < nau)
    fprintf(stderr, "evalvid-st: warning: %s has %ld access units, %s only %zu frames: the last %ld were not sent\n",
            h264, nau, sdp, r.n, nau - (long)r.n);
  FILE *out = outp ? fopen(outp, "w") : stdout;
  if (!out) { fprintf(stderr, "evalvid-st: %s: %s\n", outp, strerror(errno)); return 1; }
  size_t n = h264 ? (size_t)nau : r.n;
  double t0 = sdp ? r.sd[0].t : 0;
  for (size_t i = 0; i < r.nsd; i++) if (r.sd[i].t < t0) t0 = r.sd[i].t;
  for (size_t i = 0; i < n; i++) {
    const ev_frame *fr = sdp && i < r.n ? &r.f[i] : NULL;
    char type = h264 ? au[i].type : fr->type;
    uint64_t size = h264 ? au[i].len : (fr->bytes > 12u * fr->packets ? fr->bytes - 12u * fr->packets : 0);
    double send = fr && !isnan(fr->send) ? fr->send - t0 : 0;
    fprintf(out, "%zu\t%c\t%llu\t%u\t%.6f\n", i, type, (unsigned long long)size, fr ? fr->packets : 0, send);
  }
  if (outp && fclose(out)) { fprintf(stderr, "evalvid-st: %s: write failed\n", outp); return 1; }
  free(au);
  ev_receiver_free(&r);
  return 0;
}
