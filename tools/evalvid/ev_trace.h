/* ev_trace.h - EvalVid-style traces: sender dump sd, receiver dump rd, video trace st
 * (formats in docs/run-directory.md and docs/evalvid.md). Every parse error names file:line. */
#ifndef EV_TRACE_H
#define EV_TRACE_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  double t;          /* send time, s */
  uint64_t id;       /* wide packet id */
  uint32_t size;     /* bytes (RTP packet) */
  int32_t frame;     /* FRAME column, or -1 when the line has EvalVid's five columns */
  char type;         /* 'H' 'I' 'P' 'B', or '?' */
  uint32_t line;     /* line number in the file */
} ev_sd_pkt;

typedef struct {
  double t;          /* arrival time, s */
  uint64_t id;
  uint32_t size;
  uint32_t line;
} ev_rd_pkt;

typedef struct {
  int32_t frame;
  char type;
  uint64_t size;     /* bytes of the encoded frame */
  uint32_t packets;
  double send;       /* s */
} ev_st_frame;

/* Each returns 0, or -1 with "PATH:LINE: what is wrong" in err. Blank lines and lines starting
 * with '#' are ignored. Arrays are malloc'ed (free them). */
int ev_read_sd(const char *path, ev_sd_pkt **out, size_t *n, char *err, size_t errlen);
/* rd: "TIME id N udp SIZE"; EvalVid's "TIME id N lost SIZE" lines count as not received. */
int ev_read_rd(const char *path, ev_rd_pkt **out, size_t *n, char *err, size_t errlen);
int ev_read_st(const char *path, ev_st_frame **out, size_t *n, char *err, size_t errlen);

/* Gives five-column sd packets their frame numbers from a video trace (packets are consecutive
 * per frame, nPackets each, as EvalVid's etmp4 assumes). -1 if the counts do not add up. */
int ev_sd_assign_frames(ev_sd_pkt *sd, size_t n, const ev_st_frame *st, size_t nst,
                        const char *sdpath, char *err, size_t errlen);

/* For every sd packet, its first arrival in rd (NaN if none): duplicates keep the earliest,
 * reordering does not matter. An rd id that matches no sd packet is an error (a trace of another
 * stream), reported with the rd file and line. */
int ev_match_arrivals(const ev_sd_pkt *sd, size_t nsd, const ev_rd_pkt *rd, size_t nrd,
                      const char *sdpath, const char *rdpath, double *arrival,
                      size_t *duplicates,
                      char *err, size_t errlen);
#endif
