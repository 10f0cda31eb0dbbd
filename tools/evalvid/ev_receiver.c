/* ev_receiver.c - loads sd/rd/st and builds one receiver's frame table. */
#include "ev_receiver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ev_receiver_load(ev_receiver *r, const char *sdpath, const char *rdpath, const char *stpath,
                     char *err, size_t errlen)
{
  memset(r, 0, sizeof *r);
  if (ev_read_sd(sdpath, &r->sd, &r->nsd, err, errlen)) return -1;
  if (r->nsd == 0) { snprintf(err, errlen, "%s: no packets", sdpath); goto fail; }
  if (r->sd[0].frame < 0) {
    if (!stpath) {
      snprintf(err, errlen, "%s: five-column sender dump has no frame numbers: pass the video trace (--st)", sdpath);
      goto fail;
    }
    ev_st_frame *st; size_t nst;
    if (ev_read_st(stpath, &st, &nst, err, errlen)) goto fail;
    int rc = ev_sd_assign_frames(r->sd, r->nsd, st, nst, sdpath, err, errlen);
    free(st);
    if (rc) goto fail;
  }
  /* frame numbers far beyond the packet count are a corrupt line, not a video */
  for (size_t i = 0; i < r->nsd; i++)
    if ((uint64_t)r->sd[i].frame > 16 * (uint64_t)r->nsd + 100000) {
      snprintf(err, errlen, "%s:%u: frame number %d is implausible for a dump of %zu packets", sdpath,
               r->sd[i].line, r->sd[i].frame, r->nsd);
      goto fail;
    }
  r->arrival = malloc(sizeof *r->arrival * r->nsd);
  if (!r->arrival) { snprintf(err, errlen, "out of memory"); goto fail; }
  if (rdpath) {
    if (ev_read_rd(rdpath, &r->rd, &r->nrd, err, errlen)) goto fail;
    if (ev_match_arrivals(r->sd, r->nsd, r->rd, r->nrd, sdpath, rdpath, r->arrival, &r->duplicates, err, errlen))
      goto fail;
  } else {
    for (size_t i = 0; i < r->nsd; i++) r->arrival[i] = r->sd[i].t;
  }
  r->f = ev_frames_build(r->sd, r->nsd, r->arrival, &r->n);
  if (!r->f) { snprintf(err, errlen, "out of memory"); goto fail; }
  ev_frames_jitter(r->f, r->n);
  return 0;
fail:
  ev_receiver_free(r);
  return -1;
}

void ev_receiver_free(ev_receiver *r)
{
  free(r->sd); free(r->rd); free(r->arrival); free(r->f);
  memset(r, 0, sizeof *r);
}

static void put_time(FILE *out, double v)
{
  if (isnan(v) || isinf(v)) fputc(',', out);
  else fprintf(out, ",%.6f", fabs(v) < 5e-7 ? 0.0 : v);   /* no "-0.000000" */
}

void ev_frames_write_csv(FILE *out, const ev_frame *f, size_t n)
{
  fprintf(out, "frame,type,bytes,packets,packets_rx,send_s,arrival_s,delay_s,jitter_s,cumjitter_s,"
               "slot_s,status,decoded,shown,hdr_lost\n");
  for (size_t k = 0; k < n; k++) {
    fprintf(out, "%zu,%c,%llu,%u,%u", k, f[k].type, (unsigned long long)f[k].bytes, f[k].packets,
            f[k].packets_rx);
    put_time(out, f[k].send); put_time(out, f[k].arrival); put_time(out, f[k].delay);
    put_time(out, f[k].jitter); put_time(out, f[k].cumjitter); put_time(out, f[k].slot);
    fprintf(out, ",%s,%d,%d,%d\n", ev_status_name(f[k].status), f[k].decoded ? 1 : 0, f[k].shown,
            f[k].hdr_lost ? 1 : 0);
  }
}
