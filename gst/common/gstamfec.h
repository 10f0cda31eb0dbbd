/* gstamfec.h - SMPTE 2022-1 FEC around rtpst2022-1-fecenc/-fecdec (gst-plugins-good) for
 * asmpsink and asmpsrc: column FEC on the FEC group's port + 2, row FEC on port + 4 (the 2022-1
 * convention), so a receiver opts in by joining that group. The encoder and decoder see every
 * media packet folded (SSRC 0, its CSRCs and header extension moved into the payload, which
 * 2022-1 parity covers), so a rebuilt packet is the original byte for byte: with srtp-key it
 * authenticates like one that arrived. With srtp-key the parity packets carry gstamauth.h's
 * trailer (labels "fec column", "fec row"); the receiver drops those that fail before the
 * decoder sees them (srtp-fec-rejected) and counts only the rest. Matrix changes (the encoder allows them only in READY) are applied at
 * a key frame by cycling the encoder through READY. No policy here: lib/cc/fec.c chooses. */
#ifndef GST_AM_FEC_H
#define GST_AM_FEC_H
#include <gst/gst.h>
#include "gstamnet.h"
#include "gstamauth.h"

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
  GstAmAuth *auth[2];                         /* column, row: srtp-key's tag, NULL = off */
} GstAmFecSend;

/* Inserts the encoder between upstream (a linked src pad) and its peer and adds the two FEC
 * udpsinks to bin, to fec_address port + 2 / + 4. Call in NULL->READY. key: srtp-key's bytes
 * (NULL: parity untagged). FALSE: an element is missing (error posted). */
gboolean gst_am_fec_send_setup (GstAmFecSend * f, GstBin * bin, GstPad * upstream,
    const GstAmNetConfig * net, const gchar * fec_address, gint port, GBytes * key);
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
  guint64 media_in, media_out, fec_in;         /* fec_in: parity that passed the check */
  guint64 recovered, late, fec_rejected;
  guint64 fec_bytes_pending;                  /* parity bytes not yet given to lib/cc */
  GstAmAuth *auth[2];                         /* column, row: srtp-key's tag, NULL = off */
#define GST_AM_FEC_SEEN_WINDOW 4096
  guint32 seen[GST_AM_FEC_SEEN_WINDOW];       /* 0x10000 | seq of the packets seen */

#define GST_AM_FEC_KEEP 512
  GstBuffer *kept[GST_AM_FEC_KEEP];           /* media as they arrived, by seq */
  GstBuffer *passed[GST_AM_FEC_KEEP];         /* the first packet passed on per seq (a copy) */
  guint32 state[GST_AM_FEC_KEEP];             /* seq | what became of passed[] << 16 (gstamfec.c) */
  /* an original that arrives after its rebuilt copy passed authentication, and is that copy
   * byte for byte: it arrived (lib/cc counts it), authentic; called without our lock */
  void (*on_late) (gpointer user, GstBuffer * original, gint64 now);
  gpointer user;
} GstAmFecRecv;

/* Inserts the decoder after upstream and adds the two FEC udpsrcs (joining fec_address).
 * key: srtp-key's bytes (NULL: parity taken untagged). */
gboolean gst_am_fec_recv_setup (GstAmFecRecv * f, GstBin * bin, GstPad * upstream,
    const GstAmNetConfig * net, const gchar * fec_address, gint port, GBytes * key);
void gst_am_fec_recv_clear (GstAmFecRecv * f);
void gst_am_fec_recv_add_stats (GstAmFecRecv * f, GstStructure * st);
/* Parity bytes received since the last call: they crossed our link, so lib/cc counts them in
 * the rate received (else ASMP's receiver, which caps its rate near what it received, would
 * see only the video's share and pull the target down by the FEC share round after round). */
guint64 gst_am_fec_recv_take_bytes (GstAmFecRecv * f);
/* For each packet after authentication (the decoder's RTP, srtp-key or not): TRUE if FEC
 * rebuilt it and it did not arrive (lib/cc measures the loss before recovery: not this copy).
 * An original that comes out of the decoder after its rebuilt copy, that copy byte for byte, is
 * dropped there: before the copy passed, the copy is counted here as the arrival (FALSE); after,
 * the original goes to on_late. */
gboolean gst_am_fec_recv_take_rebuilt (GstAmFecRecv * f, guint16 seq);

G_END_DECLS
#endif
