/* ev_frames.c - per-frame network metrics and the play-out schedule. */
#include "ev_frames.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ev_frame *ev_frames_build(const ev_sd_pkt *sd, size_t nsd, const double *arrival, size_t *nframes)
{
  int32_t maxf = -1;
  for (size_t i = 0; i < nsd; i++) if (sd[i].frame > maxf) maxf = sd[i].frame;
  size_t n = (size_t)(maxf + 1);
  ev_frame *f = calloc(n ? n : 1, sizeof *f);
  if (!f) return NULL;
  for (size_t k = 0; k < n; k++) {
    f[k].type = '?'; f[k].send = NAN; f[k].arrival = -INFINITY; f[k].shown = -1;
  }
  for (size_t i = 0; i < nsd; i++) {
    ev_frame *x = &f[sd[i].frame];
    if (x->type == '?' || x->type == 'H') x->type = sd[i].type;   /* H + slice packets = slice type */
    x->packets++;
    x->hdr_packets += sd[i].type == 'H';
    x->bytes += sd[i].size;
    if (isnan(x->send) || sd[i].t < x->send) x->send = sd[i].t;
    if (!isnan(arrival[i])) {
      x->packets_rx++;
      x->hdr_packets_rx += sd[i].type == 'H';
      if (arrival[i] > x->arrival) x->arrival = arrival[i];
    }
  }
  for (size_t k = 0; k < n; k++) {
    ev_frame *x = &f[k];
    /* the picture packets decide; header-only packets (H: parameter sets, SEI, AUD) do not,
     * unless the frame has nothing else */
    uint32_t pic = x->packets - x->hdr_packets, pic_rx = x->packets_rx - x->hdr_packets_rx;
    bool complete = x->packets > 0 && (pic ? pic_rx == pic : x->packets_rx == x->packets);
    x->hdr_lost = complete && x->packets_rx < x->packets;
    if (!complete) x->arrival = NAN;
    x->delay = complete ? x->arrival - x->send : NAN;
    x->decoded = complete;
    x->status = x->packets == 0 ? EV_FRAME_UNSENT : complete ? EV_FRAME_OK : EV_FRAME_LOST;
  }
  *nframes = n;
  return f;
}

/* eq. 3 of papers/002 */
double ev_interframe_jitter(double a_prev, double g_prev, double a, double g)
{
  return (a - a_prev) - (g - g_prev);
}

/* eq. 4 of papers/002: running sum of eq. 3 */
void ev_frames_jitter(ev_frame *f, size_t n)
{
  double cj = 0;
  long prev = -1;
  for (size_t k = 0; k < n; k++) {
    f[k].jitter = f[k].cumjitter = NAN;
    if (isnan(f[k].arrival)) continue;
    if (prev >= 0) {
      f[k].jitter = ev_interframe_jitter(f[prev].arrival, f[prev].send, f[k].arrival, f[k].send);
      cj += f[k].jitter;
    }
    f[k].cumjitter = cj;
    prev = (long)k;
  }
}

void ev_playout_schedule(ev_frame *f, size_t n, double pd)
{
  /* slots: G_k + pd, forward-filled over unsent frames and kept non-decreasing */
  double last = -INFINITY;
  for (size_t k = 0; k < n; k++) {
    double s = pd < 0 ? INFINITY : f[k].send + pd;
    if (isnan(s) || s < last) s = last;
    f[k].slot = last = s;
  }
  /* newest[k] = newest usable frame that becomes visible at slot k */
  int32_t *newest = malloc(sizeof *newest * (n ? n : 1));
  if (!newest) return;
  for (size_t k = 0; k < n; k++) newest[k] = -1;
  for (size_t j = 0; j < n; j++) {
    if (!f[j].decoded || isnan(f[j].arrival)) continue;
    size_t lo = j, hi = n;           /* first k >= j with slot_k >= A_j (slots non-decreasing) */
    while (lo < hi) { size_t mid = (lo + hi) / 2; if (f[mid].slot >= f[j].arrival) hi = mid; else lo = mid + 1; }
    if (lo < n && (int32_t)j > newest[lo]) newest[lo] = (int32_t)j;
  }
  int32_t shown = -1;
  for (size_t k = 0; k < n; k++) {
    if (newest[k] > shown) shown = newest[k];
    f[k].shown = shown;
    if (f[k].status == EV_FRAME_OK || f[k].status == EV_FRAME_LATE)
      f[k].status = f[k].arrival > f[k].slot ? EV_FRAME_LATE : EV_FRAME_OK;
  }
  free(newest);
}

int ev_type_index(char type)
{
  switch (type) {
  case 'H': return EV_TYPE_H;
  case 'I': return EV_TYPE_I;
  case 'P': return EV_TYPE_P;
  case 'B': return EV_TYPE_B;
  default: return -1;
  }
}

const char *ev_status_name(ev_frame_status s)
{
  static const char *names[] = { "ok", "late", "lost", "unsent" };
  return names[s];
}

static int cmp_size(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* Freeze episodes: runs of slots not showing their own frame; p95 by nearest rank. */
static void ev_freezes(const ev_frame *f, size_t n, ev_net_summary *s)
{
  size_t *runs = malloc((n ? n : 1) * sizeof *runs), nr = 0, run = 0, total = 0;
  size_t first = n, last = 0, sent = 0;
  for (size_t k = 0; k < n; k++) {
    if (!isnan(f[k].send)) {
      if (first == n) first = k;
      last = k;
      sent++;
    }
    if (f[k].shown != (int32_t)k) {
      run++;
      total++;
    } else if (run) {
      if (runs) runs[nr++] = run;
      run = 0;
    }
  }
  if (run && runs) runs[nr++] = run;
  double iv = sent >= 2 && last > first ? (f[last].send - f[first].send) / (double)(last - first)
      : NAN;
  s->freezes = nr;
  s->freeze_max = s->freeze_p95 = nr ? NAN : 0;
  s->freeze_total = (double)total * iv;
  if (nr && runs) {
    qsort(runs, nr, sizeof *runs, cmp_size);
    size_t rank = (size_t)ceil(0.95 * (double)nr);
    s->freeze_max = (double)runs[nr - 1] * iv;
    s->freeze_p95 = (double)runs[rank ? rank - 1 : 0] * iv;
  }
  if (!total) s->freeze_total = 0;
  free(runs);
}

void ev_net_summarize(const ev_frame *f, size_t n, const ev_sd_pkt *sd, size_t nsd,
                      const double *arrival, ev_net_summary *s)
{
  size_t dup = s->duplicates;
  memset(s, 0, sizeof *s);
  s->duplicates = dup;
  s->delay_min = INFINITY;
  double tmin = INFINITY, tmax = -INFINITY;
  for (size_t i = 0; i < nsd; i++) {
    int t = ev_type_index(sd[i].type);
    bool lost = isnan(arrival[i]);
    if (t >= 0) { s->packets[t]++; s->packets_lost[t] += lost; }
    s->packets[EV_TYPE_ALL]++; s->packets_lost[EV_TYPE_ALL] += lost;
    s->bytes_sent += sd[i].size;
    if (!lost) s->bytes_received += sd[i].size;
    if (sd[i].t < tmin) tmin = sd[i].t;
    if (sd[i].t > tmax) tmax = sd[i].t;
  }
  s->duration = nsd ? tmax - tmin : 0;
  size_t complete = 0, njit = 0;
  bool *seen = calloc(n ? n : 1, 1);
  for (size_t k = 0; k < n; k++) {
    int t = ev_type_index(f[k].type);
    bool lost = f[k].status == EV_FRAME_LOST || f[k].status == EV_FRAME_UNSENT;
    if (t >= 0) { s->frames[t]++; s->frames_lost[t] += lost; }
    s->frames[EV_TYPE_ALL]++; s->frames_lost[EV_TYPE_ALL] += lost;
    s->frames_late += f[k].status == EV_FRAME_LATE;
    s->frames_hdr_lost += f[k].hdr_lost;
    s->frames_frozen += f[k].shown != (int32_t)k;
    if (seen && f[k].shown >= 0) seen[f[k].shown] = true;
    if (!isnan(f[k].delay)) {
      complete++;
      s->delay_mean += f[k].delay;
      if (f[k].delay > s->delay_max) s->delay_max = f[k].delay;
      if (f[k].delay < s->delay_min) s->delay_min = f[k].delay;
    }
    if (!isnan(f[k].jitter)) { njit++; s->jitter_mean_abs += fabs(f[k].jitter); }
    if (!isnan(f[k].cumjitter)) {
      if (f[k].cumjitter > s->cumjitter_max) s->cumjitter_max = f[k].cumjitter;
      s->cumjitter_last = f[k].cumjitter;
    }
  }
  for (size_t k = 0; k < n; k++)
    if (seen && (f[k].status == EV_FRAME_OK || f[k].status == EV_FRAME_LATE) && !seen[k])
      s->frames_never_shown++;
  free(seen);
  ev_freezes(f, n, s);
  s->delay_mean = complete ? s->delay_mean / (double)complete : NAN;
  if (!complete) s->cumjitter_max = s->cumjitter_last = NAN;
  if (!complete) s->delay_min = s->delay_max = NAN;
  s->jitter_mean_abs = njit ? s->jitter_mean_abs / (double)njit : NAN;
}

uint64_t *ev_throughput_bins(const double *times, const uint32_t *sizes, size_t n, double t0,
                             double width, size_t *nbins)
{
  double tmax = t0;
  for (size_t i = 0; i < n; i++) if (!isnan(times[i]) && times[i] > tmax) tmax = times[i];
  double span = floor((tmax - t0) / width) + 1;
  if (!(span <= 1e7)) return NULL;        /* a corrupt time, not a run of 10 million bins */
  size_t nb = (size_t)span;
  uint64_t *b = calloc(nb, sizeof *b);
  if (!b) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (isnan(times[i]) || times[i] < t0) continue;
    size_t k = (size_t)floor((times[i] - t0) / width);
    if (k < nb) b[k] += sizes[i];
  }
  *nbins = nb;
  return b;
}
