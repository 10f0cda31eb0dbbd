/* gstamsessionbin.h - GstAmSessionBin, the base bin of the elements that run RTP sessions on
 * multicast groups (asmpsink, asmpsrc, avmrclayers). Written once here: rtpbin and its SRTP
 * slots (srtp-key), per session the udpsink and udpsrc of its RTP and RTCP on a group and port,
 * the RTCP socket a session's udpsrc lends its udpsink (peers see one address per participant,
 * as in RIST), the RTCP EOS guard, joining and leaving a session's group while PLAYING, and the
 * network settings. A subclass adds the sessions it needs (in its init, or in its start vfunc
 * when their number is a property), gives them their addresses in start, and translates
 * between its sessions and lib/cc. Who calls whom: docs/elements.md "The base bin".
 *
 *   SEND     feed (a child of the subclass) -> send_rtp_sink_i  rtpbin  send_rtp_src_i -> rtp_sink
 *   RECV     rtp_src -> recv_rtp_sink_i  rtpbin  (recv_rtp_src_i_*: the subclass's pad-added)
 *   always   rtpbin send_rtcp_src_i -> rtcp_sink (rtcp host, port + 1)
 *   RTCP_IN  rtcp_src (port + 1) -> recv_rtcp_sink_i; rtcp_sink sends from rtcp_src's socket
 *
 * i is the session's index (rtpbin's session id): sessions are added in order, and gst_am_srtp
 * slot i is session i's. */
#ifndef GST_AM_SESSION_BIN_H
#define GST_AM_SESSION_BIN_H
#include <gst/gst.h>
#include "gstamnet.h"
#include "gstamsrtp.h"

G_BEGIN_DECLS

#define GST_AM_SESSION_BIN_MAX 16       /* AMCC_AVMRC_MAX_LAYERS layers, one session each */

typedef enum {
  GST_AM_SESSION_SEND = 1 << 0,         /* RTP out to the group */
  GST_AM_SESSION_RECV = 1 << 1,         /* RTP in from the group (joined while PLAYING) */
  GST_AM_SESSION_RTCP_IN = 1 << 2,      /* RTCP in on port + 1, our RTCP out from its socket */
} GstAmSessionFlags;

typedef struct {
  guint id;                     /* rtpbin's session id, = index */
  GstAmSessionFlags flags;
  GstElement *rtp_sink, *rtp_src, *rtcp_sink, *rtcp_src;      /* NULL where flags have none */
  GstAmEosGuard guard;          /* on rtcp_sink */
  gboolean joined;              /* RECV: rtp_src runs (its group is joined) */
  gboolean dynamic;             /* added by start: removed at READY -> NULL */
} GstAmSession;

#define GST_TYPE_AM_SESSION_BIN (gst_am_session_bin_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstAmSessionBin, gst_am_session_bin, GST, AM_SESSION_BIN, GstBin)

struct _GstAmSessionBinClass {
  GstBinClass parent_class;
  /* NULL -> READY, after the SRTP key is checked and before the sessions' sockets open: check
   * the settings, add the sessions whose number is a property, give every session its
   * addresses. FALSE: failed (post the error); stop is then called. Both run with the
   * subclass's lock held when it gave one (gst_am_session_bin_set_lock). */
  gboolean (*start) (GstAmSessionBin * bin);
  /* READY -> NULL (after the children stopped), and after a failed start */
  void (*stop) (GstAmSessionBin * bin);
};

/* The lock start and stop run under: *lockp when called (a subclass that runs as one stream of
 * a group, asmpsink and asmpsrc, takes the group's lock by changing its pointer). NULL: none. */
void gst_am_session_bin_set_lock (GstAmSessionBin * bin, GMutex ** lockp);

/* The subclass's view: rtpbin, the SRTP slots, the network settings (read and written under the
 * subclass's lock, by its properties; gst_am_net_config_set_property) and the sessions. */
GstElement *gst_am_session_bin_rtpbin (GstAmSessionBin * bin);
GstAmSrtp *gst_am_session_bin_srtp (GstAmSessionBin * bin);
GstAmNetConfig *gst_am_session_bin_net (GstAmSessionBin * bin);
guint gst_am_session_bin_n_sessions (GstAmSessionBin * bin);
GstAmSession *gst_am_session_bin_session (GstAmSessionBin * bin, guint i);

/* Adds session n_sessions with its elements, named rtp_sink<suffix>, rtp_src<suffix>,
 * rtcp_sink<suffix> and rtcp_src<suffix>, linked to rtpbin. SEND: feed (a child of bin) feeds
 * rtpbin's send_rtp_sink from its "src" pad. Call in init (kept for the element's life) or in
 * start (removed at READY -> NULL). NULL when full or an element is missing (error posted). */
GstAmSession *gst_am_session_bin_add (GstAmSessionBin * bin, GstAmSessionFlags flags,
    const gchar * suffix, GstElement * feed);
/* In start: session s's RTP goes to or comes from group:port, its RTCP to rtcp_host:port + 1
 * (NULL: the group) and from port + 1; interface, TTL and loop from the network settings. */
void gst_am_session_bin_set_address (GstAmSessionBin * bin, GstAmSession * s,
    const gchar * group, gint port, const gchar * rtcp_host);
/* RECV, while PLAYING: starts (joins the group) or stops (closes the socket: the kernel sends
 * the IGMP leave) s's RTP udpsrc; it stays so across PAUSED and PLAYING until changed again,
 * and READY -> NULL joins every session again (a restart starts joined). Not from a streaming
 * thread of bin (use gst_element_call_async). Calls are applied in the order they are made:
 * a caller on several threads (gst_element_call_async's pool) applies its latest wanted state
 * each time, as avmrcsrc does, instead of queueing one call per change. */
void gst_am_session_bin_set_joined (GstAmSessionBin * bin, GstAmSession * s, gboolean joined);
/* EOS has come on the RTP path: arm every session's RTCP EOS guard (gst_am_eos_guard_arm). */
void gst_am_session_bin_arm_eos_guards (GstAmSessionBin * bin, gint64 delay_ns);
/* A flush: disarm them (the base bin does at PLAYING -> PAUSED and READY -> NULL). */
void gst_am_session_bin_reset_eos_guards (GstAmSessionBin * bin);

G_END_DECLS
#endif
