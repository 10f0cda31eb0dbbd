/* asmp-replay - a live receiver's packets through lib/cc's ASMP receiver again, offline.
 *
 *   asmp-replay RUN_DIR RECEIVER [--set NAME=VALUE]...
 *
 * Reads RUN_DIR/sender/sd.txt (send time, size and frame of every packet), RUN_DIR/rx-RECEIVER/
 * rd.txt (what arrived, when) and RUN_DIR/rx-RECEIVER/stats.csv (when the live receiver reported,
 * and its RTT then, fed back as the sender's echo), and closes a report at each of those times
 * as asmpsrc did. Prints one CSV row per report: the replay's rate, rate received, regime and
 * queue next to the live receiver's. Open loop: the sender's packets are the ones it sent live,
 * so the replay shows what a change of rule would have decided on the same input, not what the
 * session would have become. --set overrides an ASMP parameter (amcc/asmp.h) by name. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amcc/asmp.h"

typedef struct { double t; uint64_t id; uint32_t size; long frame; } pkt;

static const struct { const char *name; size_t off; int is_int; } params[] = {
#define D(f) { #f, offsetof (amcc_asmp_params, f), 0 }
#define I(f) { #f, offsetof (amcc_asmp_params, f), 1 }
  D (queue_target_s), D (queue_hold_s), D (drain_s), D (compete_after_s), D (compete_hold_s),
  D (delay_backoff), D (knee_step), D (delay_rise), D (knee_loss_frac), D (foreign_margin),
  D (startup_gain), D (step_frac), D (window_s), D (send_gap_s), D (resume_s),
  D (queue_cap_hold_s), D (burst_cut_max), D (knee_hold_s), D (knee_hold_frac), D (random_loss_q_s),
  D (random_loss_max), I (adaptive_mode), I (recv_least_delay), I (loss_events),
#undef D
#undef I
};

static int
set_param (amcc_asmp_params *p, const char *arg)
{
  const char *eq = strchr (arg, '=');
  for (size_t i = 0; eq && i < sizeof params / sizeof params[0]; i++)
    if (strlen (params[i].name) == (size_t) (eq - arg) && !strncmp (arg, params[i].name, eq - arg)) {
      if (params[i].is_int)
        *(int *) ((char *) p + params[i].off) = atoi (eq + 1);
      else
        *(double *) ((char *) p + params[i].off) = atof (eq + 1);
      return 0;
    }
  return -1;
}

/* `TIME id ID udp SIZE [FRAME TYPE]` lines; returns the count, *out malloc'd */
static size_t
read_dump (const char *path, pkt **out)
{
  FILE *f = fopen (path, "r");
  size_t n = 0, cap = 0;
  char line[256];
  *out = NULL;
  if (!f)
    return 0;
  while (fgets (line, sizeof line, f)) {
    pkt p = { 0, 0, 0, -1 };
    unsigned long long id;
    if (sscanf (line, "%lf id %llu udp %u %ld", &p.t, &id, &p.size, &p.frame) < 3)
      continue;
    p.id = id;
    if (n == cap && !(*out = realloc (*out, (cap = cap ? 2 * cap : 4096) * sizeof **out))) {
      fclose (f);
      return 0;
    }
    (*out)[n++] = p;
  }
  fclose (f);
  return n;
}

static int
by_id (const void *a, const void *b)
{
  uint64_t x = ((const pkt *) a)->id, y = ((const pkt *) b)->id;
  return x < y ? -1 : x > y;
}

static amcc_time
ns (double s)
{
  return (amcc_time) (s * 1e9);
}

int
main (int argc, char **argv)
{
  amcc_asmp_params p;
  char path[4096];
  pkt *sd, *rd;

  amcc_asmp_params_init (&p);
  if (argc < 3 || argv[1][0] == '-') {
    fprintf (stderr, "usage: asmp-replay RUN_DIR RECEIVER [--set NAME=VALUE]...\n");
    return 2;
  }
  for (int i = 3; i < argc; i++)
    if (strcmp (argv[i], "--set") || i + 1 == argc || set_param (&p, argv[++i])) {
      fprintf (stderr, "asmp-replay: bad option '%s' (--set NAME=VALUE; NAME one of", argv[i]);
      for (size_t k = 0; k < sizeof params / sizeof params[0]; k++)
        fprintf (stderr, " %s", params[k].name);
      fprintf (stderr, ")\n");
      return 2;
    }
  if (amcc_asmp_params_validate (&p) != AMCC_OK) {
    fprintf (stderr, "asmp-replay: the parameters are out of range (amcc_asmp_params_validate)\n");
    return 2;
  }
  snprintf (path, sizeof path, "%s/sender/sd.txt", argv[1]);
  size_t nsd = read_dump (path, &sd);
  snprintf (path, sizeof path, "%s/rx-%s/rd.txt", argv[1], argv[2]);
  size_t nrd = read_dump (path, &rd);
  snprintf (path, sizeof path, "%s/rx-%s/stats.csv", argv[1], argv[2]);
  FILE *st = fopen (path, "r");
  if (!nsd || !nrd || !st) {
    fprintf (stderr, "asmp-replay: cannot read sd.txt, rd.txt or stats.csv under %s\n", argv[1]);
    return 1;
  }
  uint64_t base = sd[0].id;
  qsort (sd, nsd, sizeof *sd, by_id);
  amcc_asmp_receiver rx;
  amcc_asmp_receiver_init (&rx, &p, 90000);
  char line[512];
  size_t k = 0;
  if (!fgets (line, sizeof line, st)) {
    fprintf (stderr, "asmp-replay: %s/rx-%s/stats.csv is empty (no report to replay)\n", argv[1],
        argv[2]);
    fclose (st);
    free (sd);
    free (rd);
    return 1;
  }
  printf ("time_s,rate_bps,recv_bps,mode,queue_s,loss,live_rate_bps,live_mode,live_queue_s\n");
  while (fgets (line, sizeof line, st)) {
    double t, rate, recv, loss, rtt, jit, q;
    int cong;
    char mode[32];
    if (sscanf (line, "%lf,%lf,%lf,%lf,%lf,%lf,%d,%31[^,],%lf", &t, &rate, &recv, &loss, &rtt,
            &jit, &cong, mode, &q) != 9)
      continue;
    for (; k < nrd && rd[k].t < t; k++) {
      pkt key = { 0, rd[k].id, 0, 0 }, *s = bsearch (&key, sd, nsd, sizeof *sd, by_id);
      uint32_t ts = s && s->frame >= 0 ? (uint32_t) (s->frame * 3600) : 0;   /* 25 fps */
      amcc_asmp_receiver_on_rtp (&rx, ns (rd[k].t), (uint16_t) (rd[k].id - base), ts,
          s ? ns (s->t) : AMCC_TIME_NONE, rd[k].size);
    }
    if (rtt > 0)
      amcc_asmp_receiver_on_rtt_echo (&rx, ns (t), ns (rtt));
    amcc_asmp_report rep;
    amcc_asmp_receiver_make_report (&rx, ns (t), &rep);
    static const char *const modes[] = { "startup", "delay", "competing" };
    printf ("%.3f,%.0f,%.0f,%s,%.4f,%.4f,%.0f,%s,%.4f\n", t, rep.rate_bps, rx.recv_Bps * 8,
        (unsigned) rep.mode < 3 ? modes[rep.mode] : "?", rep.queue_s, rep.loss, rate, mode, q);
  }
  fclose (st);
  free (sd);
  free (rd);
  return 0;
}
