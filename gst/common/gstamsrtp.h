/* gstamsrtp.h - SRTP/SRTCP with a group key (RFC 3711; srtpenc/srtpdec of gst-plugins-bad) for
 * every element that owns an rtpbin, and for avmrcsrc's per-layer sockets. The elements only
 * call this; nothing here knows a protocol.
 *
 * Property `srtp-key`: the 30-byte master key and salt of AES-128-ICM + HMAC-SHA1-80 as 60 hex
 * digits (what srtpenc's `key` takes); empty or NULL = off (the default). Every member of the
 * group holds the same key. Checked at NULL -> READY: a key of the wrong length or with a
 * non-hex character is an error there and the element does not start.
 *
 * How it sits in rtpbin: rtpbin asks for its encoders and decoders (request-rtp-encoder,
 * request-rtcp-encoder, request-rtp-decoder, request-rtcp-decoder) when its pads are requested,
 * which the elements do in their instance init, before any property is set. So the hooks always
 * answer with a slot: a bin with rtpbin's pad names whose inside is decided at NULL -> READY
 * (gst_am_srtp_start): srtpenc / srtpdec when keyed, a pass-through when not. Each slot has a
 * plain tap (an identity) where the element's probes see what it always saw: RTP and RTCP as
 * they leave rtpsession, before encryption, and as they arrive, after authentication:
 *
 *   encoder slot:  rtp_sink_N  -> tap -> [srtpenc rtp_sink_N -> rtp_src_N -> rename] -> rtp_src_N
 *                  rtcp_sink_N -> tap -> [srtpenc rtcp ... -> rename] -> rtcp_src_N
 *   decoder slot:  rtp_sink  -> [rename -> srtpdec rtp_sink -> rtp_src] -> tap -> rtp_src
 *                  rtcp_sink -> [rename -> srtpdec rtcp ...] -> tap -> rtcp_src
 * (taps: identities named rtp_out_plain, rtcp_out_plain, rtp_in_plain, rtcp_in_plain)
 *
 * (rename: srtpenc/srtpdec speak application/x-srtp(c), everything around them x-rtp(cp); it
 * also strips the key srtpenc writes into its output caps.)
 *
 * The decoder answers srtpdec's request-key with the group key for an SSRC, with the rollover
 * counter (ROC) of RTP taken from the extended sequence number asmpsink stamps (header extension
 * GST_AM_EXT_ID_EXTSEQ; a receiver that joins after the 16-bit sequence number wrapped decodes
 * nothing with ROC 0). srtpdec keeps a libsrtp stream per SSRC, made before the packet is
 * authenticated (measured: about 30 KB each) and never freed one by one (its remove-key hands
 * libsrtp a host-order SSRC), so forged packets from new SSRCs would grow it without bound: at
 * most GST_AM_SRTP_MAX_UNPROVEN SSRCs that have not yet sent an authentic packet are keyed;
 * beyond that new SSRCs are refused (their packets dropped and counted) and the whole table is
 * cleared (clear-keys), at most once per GST_AM_SRTP_CLEAR_GAP_NS; SSRCs that have proven
 * themselves are keyed again at their next packet.
 *
 * Stats (gst_am_srtp_add_stats): srtp (boolean), srtp-rtp-rejected and srtp-rtcp-rejected
 * (uint64: packets srtpdec dropped - failed authentication, replays, refused SSRCs), srtp-ssrcs
 * (uint: SSRCs keyed now), srtp-refused (uint64: packets of new SSRCs refused by the cap),
 * srtp-clears (uint64). */
#ifndef GST_AM_SRTP_H
#define GST_AM_SRTP_H
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_AM_SRTP_KEY_BYTES 30        /* AES-128-ICM master key 16 + salt 14 (RFC 3711) */
#define GST_AM_SRTP_TAG_BYTES 10        /* HMAC-SHA1-80 tag on every SRTP packet */
/* SSRCs keyed at once that have not sent an authentic packet: a member's first packet proves
 * it within one RTCP interval; 64 covers that many members joining within one */
#define GST_AM_SRTP_MAX_UNPROVEN 64
#define GST_AM_SRTP_MAX_KEYED 1024      /* SSRCs keyed at once (the guard's binding cap) */
#define GST_AM_SRTP_CLEAR_GAP_NS (2 * GST_SECOND)
#define GST_AM_SRTP_STALE_NS (60 * GST_SECOND)  /* a proven SSRC this silent is forgotten */
/* srtpdec's replay window (packets): FEC-recovered packets arrive up to a 20 x 20 matrix late */
#define GST_AM_SRTP_REPLAY_WINDOW 1024

typedef struct _GstAmSrtp GstAmSrtp;

typedef enum {
  GST_AM_SRTP_RTP_SEND,         /* RTP leaving rtpsession, before encryption */
  GST_AM_SRTP_RTCP_SEND,        /* RTCP leaving rtpsession, before encryption */
  GST_AM_SRTP_RTP_RECV,         /* RTP that passed authentication, before rtpsession */
  GST_AM_SRTP_RTCP_RECV         /* RTCP that passed authentication, before rtpsession */
} GstAmSrtpPoint;

/* owner: the element (errors are posted on it). rtpbin: its rtpbin, whose encoder and decoder
 * hooks are connected here: call before requesting rtpbin's pads. NULL for an element without
 * rtpbin (gst_am_srtp_decoder makes its slots). */
GstAmSrtp *gst_am_srtp_new (GstElement * owner, GstElement * rtpbin);
void gst_am_srtp_free (GstAmSrtp * s);

/* The `srtp-key` property (write-only: it is a secret) */
void gst_am_srtp_install_property (GObjectClass * klass, guint prop_id);
gboolean gst_am_srtp_set_property (GstAmSrtp * s, GParamSpec * pspec, const GValue * value);
/* The key's bytes from hex (NULL or "" = off: TRUE with *key NULL); FALSE with a message. */
gboolean gst_am_srtp_parse_key (const gchar * hex, GBytes ** key, GError ** err);
/* The same check for an element that hands the key to its children (asspsimulcast, asspsrc):
 * FALSE after an error on owner. */
gboolean gst_am_srtp_check_key (GstElement * owner, const gchar * hex);

/* NULL -> READY, before the children change state: checks the key (an error on the owner and
 * FALSE when it is not one) and builds every slot for it. */
gboolean gst_am_srtp_start (GstAmSrtp * s);
gboolean gst_am_srtp_enabled (GstAmSrtp * s);
/* The key's 30 bytes as set at the last start (ref'd), NULL when off: what gstamauth.c derives
 * the FEC packets' tag key from. */
GBytes *gst_am_srtp_get_key (GstAmSrtp * s);

/* The plain tap's src pad of session (rtpbin) or layer (gst_am_srtp_decoder) `index`: ref'd,
 * NULL if rtpbin never asked for that slot. */
GstPad *gst_am_srtp_plain_pad (GstAmSrtp * s, guint index, GstAmSrtpPoint point);
/* Adds a probe there; FALSE (and a critical) if there is no such slot. */
gboolean gst_am_srtp_add_probe (GstAmSrtp * s, guint index, GstAmSrtpPoint point,
    GstPadProbeType mask, GstPadProbeCallback cb, gpointer data);
/* A decoder slot for an element without rtpbin (pads rtp_sink, rtp_src, rtcp_sink, rtcp_src):
 * ref'd, the caller adds it to its bin. The encoder slot (pads rtp_sink_N, rtp_src_N,
 * rtcp_sink_N, rtcp_src_N) likewise: what rtpbin gets for session N. */
GstElement *gst_am_srtp_decoder (GstAmSrtp * s, guint index);
GstElement *gst_am_srtp_encoder (GstAmSrtp * s, guint index);

/* Protects one compound RTCP packet of session 0 as the encoder would protect the next one
 * (the SSRC's SRTCP index goes on), for what the element sends itself (a receiver's BYE) but
 * does not push: the protected packet is returned (transfer full; when off, a ref of rtcp).
 * Call while the encoder has not seen EOS and is active (not flushing); NULL on failure. */
GstBuffer *gst_am_srtp_protect_rtcp (gpointer s, GstBuffer * rtcp);

/* Decoder `index` starts over (a group left and joined again: its sequence numbers jumped
 * further than libsrtp's estimate of the rollover counter reaches): every SSRC is keyed anew,
 * with the ROC of its next packet. */
void gst_am_srtp_forget (GstAmSrtp * s, guint index);

void gst_am_srtp_add_stats (GstAmSrtp * s, GstStructure * st);

G_END_DECLS
#endif
