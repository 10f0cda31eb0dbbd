/* gstamfec.h - SMPTE 2022-1 FEC around rtpst2022-1-fecenc/-fecdec (gst-plugins-good) for
 * asmpsink and asmpsrc: column FEC on the FEC group's port + 2, row FEC on port + 4 (the 2022-1
 * convention), so a receiver opts in by joining that group. These elements insist on media SSRC
 * 0: the glue rewrites the SSRC to 0 on the way into them and back on the way out (2022-1 parity
 * does not cover the SSRC). Matrix changes (the encoder allows them only in READY) are applied at
 * a key frame by cycling the encoder through READY. No policy here: lib/cc/fec.c chooses. */
#ifndef GST_AM_FEC_H
#define GST_AM_FEC_H
#include <gst/gst.h>
#include "gstamnet.h"

G_BEGIN_DECLS

typedef enum {
  GST_AM_FEC_OFF,
  GST_AM_FEC_AUTO,    /* matrix from the worst reported loss (amcc_fec_choose) */
  GST_AM_FEC_FIXED    /* fec-columns x fec-rows from the start */
} GstAmFecMode;
#define GST_TYPE_AM_FEC_MODE (gst_am_fec_mode_get_type ())
GType gst_am_fec_mode_get_type (void);

#define GST_AM_FEC_COLUMN_PORT_OFFSET 2
#define GST_AM_FEC_ROW_PORT_OFFSET 4

/* ---- sender: rtpbin's RTP out -> fecenc -> RTP udpsink; fecenc's fec_0/fec_1 -> udpsinks ---- */
typedef struct {
  GMutex lock;
  GstElement *enc, *col_sink, *row_sink;      /* children of the bin, not ref'd */
  GstPad *upstream;                           /* the pad feeding enc (ref) */
  guint32 ssrc;                               /* media SSRC seen last */
  guint columns, rows;                        /* in force; 0 columns = no FEC sent */
  guint want_columns, want_rows;              /* to apply at the next key frame */
  gboolean pending;
  guint keys_waited;                          /* key frames a pending growth has waited */
  guint64 fec_packets, fec_bytes, media_packets, switches;
} GstAmFecSend;

/* Inserts the encoder between upstream (a linked src pad) and its peer and adds the two FEC
 * udpsinks to bin, to fec_address port + 2 / + 4. Call in NULL->READY. FALSE: an element is
 * missing (error posted). */
gboolean gst_am_fec_send_setup (GstAmFecSend * f, GstBin * bin, GstPad * upstream,
    const GstAmNetConfig * net, const gchar * fec_address, gint port);
void gst_am_fec_send_clear (GstAmFecSend * f);
/* More parity waits this many key frames: the encoder gets its lower share at the first and
 * needs a GOP to follow it (x264 takes seconds), else video and parity overfill the link. */
#define GST_AM_FEC_GROW_KEYS 2
/* Asks for an L x D matrix (0 columns: none) from the next key frame on (more parity than now:
 * from the GST_AM_FEC_GROW_KEYS-th). */
void gst_am_fec_send_request (GstAmFecSend * f, guint columns, guint rows);
/* Before buf goes to the encoder (the upstream pad's streaming thread, no lock of ours held):
 * at a key frame, applies a pending matrix. */
void gst_am_fec_send_before (GstAmFecSend * f, GstBuffer * buf, gboolean key);
void gst_am_fec_send_add_stats (GstAmFecSend * f, GstStructure * st);
/* Parity bytes sent so far. */
guint64 gst_am_fec_send_bytes (GstAmFecSend * f);

/* ---- receiver: RTP udpsrc -> fecdec -> rtpbin; two udpsrcs on the FEC group -> fecdec ---- */
typedef struct {
  GMutex lock;
  GstElement *dec, *col_src, *row_src;
  guint32 ssrc;
  guint64 media_in, media_out, fec_in;
  guint64 recovered, late;
  guint64 fec_bytes_pending;                  /* parity bytes not yet given to lib/cc */
  guint32 extseq;                             /* the last extended seq that arrived */
  gboolean have_extseq;
#define GST_AM_FEC_SEEN_WINDOW 4096
  guint32 seen[GST_AM_FEC_SEEN_WINDOW];       /* 0x10000 | seq of the packets seen */
#define GST_AM_FEC_KEEP 512
  GstBuffer *kept[GST_AM_FEC_KEEP];           /* media as they arrived, by seq, until passed on */
} GstAmFecRecv;

/* Inserts the decoder after upstream and adds the two FEC udpsrcs (joining fec_address). */
gboolean gst_am_fec_recv_setup (GstAmFecRecv * f, GstBin * bin, GstPad * upstream,
    const GstAmNetConfig * net, const gchar * fec_address, gint port);
void gst_am_fec_recv_clear (GstAmFecRecv * f);
void gst_am_fec_recv_add_stats (GstAmFecRecv * f, GstStructure * st);
/* Parity bytes received since the last call: they crossed our link, so lib/cc counts them in
 * the rate received (else ASMP's receiver, which caps its rate near what it received, would
 * see only the video's share and pull the target down by the FEC share round after round). */
guint64 gst_am_fec_recv_take_bytes (GstAmFecRecv * f);

G_END_DECLS
#endif
