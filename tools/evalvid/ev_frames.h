/* ev_frames.h - what one receiver got, frame by frame: loss, delay, jitter (papers/002 eq. 3-4),
 * the absolute play-out schedule (papers/002 section F), loss by frame type, throughput.
 * Plain computations on arrays; no I/O. Times in seconds. */
#ifndef EV_FRAMES_H
#define EV_FRAMES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ev_trace.h"

typedef enum { EV_FRAME_OK, EV_FRAME_LATE, EV_FRAME_LOST, EV_FRAME_UNSENT } ev_frame_status;

typedef struct {
  char type;             /* H I P B ('?' unknown) */
  uint32_t packets, packets_rx;
  uint32_t hdr_packets, hdr_packets_rx; /* header-only packets (sd type H) and how many arrived */
  bool hdr_lost;         /* complete, but some header-only packets were lost */
  uint64_t bytes;        /* sum of the sent packet sizes */
  double send;           /* G_i: first packet's send time; NaN if unsent */
  double arrival;        /* A_i: last packet's first arrival, NaN unless every packet arrived */
  double delay;          /* A_i - G_i, NaN if lost */
  double jitter;         /* J_i (eq. 3) against the previous complete frame; NaN if lost or first */
  double cumjitter;      /* CJ_i (eq. 4) summed over complete frames so far; NaN if lost */
  double slot;           /* display time G_i + p_d (monotone); +inf without a play-out delay */
  bool decoded;          /* the decoder produced a picture for it (set by the caller; default
                            = complete) */
  int32_t shown;         /* frame displayed at this frame's slot, -1 = nothing yet (black) */
  ev_frame_status status;
} ev_frame;

/* Builds frames 0..max FRAME from sd packets and their arrivals (NaN = lost). A frame is lost if
 * any of its picture packets (type I/P/B) is lost (EvalVid's -F); no partial frames are decoded.
 * Header-only packets (type H: SPS/PPS/SEI/AUD) carry no picture: losing them leaves the frame
 * complete with hdr_lost set (the caller then decodes it without its own headers). A frame of
 * H packets only is lost if any of them is. *nframes is set. */
ev_frame *ev_frames_build(const ev_sd_pkt *sd, size_t nsd, const double *arrival, size_t *nframes);

/* J_i = (A_i - A_{i-1}) - (G_i - G_{i-1}) (eq. 3) for consecutive complete frames. */
double ev_interframe_jitter(double a_prev, double g_prev, double a, double g);
/* Fills jitter and cumjitter: CJ_k = sum of J_i over complete frames up to k (eq. 4). */
void ev_frames_jitter(ev_frame *f, size_t n);

/* Absolute play-out delay PD seconds (< 0: none, every usable frame is shown at its own slot).
 * Slot of frame k: S_k = G_k + PD (made non-decreasing). Frame j is usable if it is complete and
 * decoded; it becomes visible at the first slot k >= j with S_k >= A_j. At slot k the newest
 * visible frame is shown (a late but newer frame replaces the frozen one; a late frame overtaken
 * by a newer one is never shown). Sets slot, shown and status (OK / LATE / LOST / UNSENT). */
void ev_playout_schedule(ev_frame *f, size_t n, double pd);

enum { EV_TYPE_H, EV_TYPE_I, EV_TYPE_P, EV_TYPE_B, EV_TYPE_ALL, EV_NTYPES };
typedef struct {
  uint64_t frames[EV_NTYPES], frames_lost[EV_NTYPES];      /* lost = incomplete or unsent */
  uint64_t packets[EV_NTYPES], packets_lost[EV_NTYPES];
  uint64_t frames_late, frames_never_shown, frames_frozen; /* frozen: slot showing another frame */
  uint64_t frames_hdr_lost;                                /* complete, header packets lost */
  /* freezes: maximal runs of slots that do not show their own frame (a repeated or black
   * picture); lengths in seconds = slots x the mean frame interval (NaN when unknown) */
  uint64_t freezes;
  double freeze_max, freeze_p95, freeze_total;
  double delay_mean, delay_max, delay_min;                 /* over complete frames */
  double jitter_mean_abs, cumjitter_max, cumjitter_last;
  uint64_t bytes_sent, bytes_received;
  double duration;                                         /* first to last send time */
  size_t duplicates;
} ev_net_summary;

int ev_type_index(char type);
const char *ev_status_name(ev_frame_status s);
void ev_net_summarize(const ev_frame *f, size_t n, const ev_sd_pkt *sd, size_t nsd,
                      const double *arrival, ev_net_summary *s);

/* Bytes per bin of WIDTH seconds from T0 of packets (times[i], sizes[i]; NaN times skipped);
 * returns a malloc'ed array of *nbins counts, NULL if out of memory or more than 10^7 bins. */
uint64_t *ev_throughput_bins(const double *times, const uint32_t *sizes, size_t n, double t0,
                             double width, size_t *nbins);
#endif
