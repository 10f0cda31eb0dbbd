/* gstamnet.h - rtpbin + udpsrc/udpsink plumbing shared by asmpsink and asmpsrc: multicast
 * sockets, the shared RTCP socket, RTCP loop filtering, the RTCP interval, the time source and
 * the RTP header extensions that carry the sender's time and extended sequence number. */
#ifndef GST_AM_NET_H
#define GST_AM_NET_H
#include <gst/gst.h>
#include <amcc/rtt.h>
#include <amcc/seq.h>

G_BEGIN_DECLS

/* Big-endian reads from network bytes at any alignment (GST_READ_UINT*_BE do unaligned
 * word loads on x86, which UBSan reports). */
static inline guint32
gst_am_be32 (const guint8 * p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

static inline guint64
gst_am_be64 (const guint8 * p)
{
  return ((guint64) gst_am_be32 (p) << 32) | gst_am_be32 (p + 4);
}

#define GST_AM_DEFAULT_ADDRESS "239.1.2.3"
#define GST_AM_DEFAULT_PORT 5004
#define GST_AM_DEFAULT_RTCP_INTERVAL_MS 1000
/* One-byte RTP header extension ids (RFC 8285) written by asmpsink, read by asmpsrc. */
#define GST_AM_EXT_ID_NTP64 1   /* urn:ietf:params:rtp-hdrext:ntp-64 (RFC 6051), send time */
#define GST_AM_EXT_ID_EXTSEQ 2  /* urn:gst-amcast:extseq, 32-bit extended sequence number */
#define GST_AM_EXT_URI_NTP64 "urn:ietf:params:rtp-hdrext:ntp-64"
#define GST_AM_EXT_URI_EXTSEQ "urn:gst-amcast:extseq"

/* Network settings common to both elements. */
typedef struct {
  gchar *address;        /* RTP destination / group */
  gint port;             /* RTP port; RTCP is port + 1 */
  gchar *iface;          /* multicast-iface, may be NULL */
  gint ttl;              /* multicast TTL */
  gboolean loop;         /* IP_MULTICAST_LOOP */
} GstAmNetConfig;

/* The GstAmNetConfig properties both elements expose (address, port, multicast-iface, ttl-mc,
 * loop; each element installs them with its own blurbs): set or get one by its name. FALSE when
 * pspec is not one of them. Call with the element's lock held. */
gboolean gst_am_net_config_set_property (GstAmNetConfig * net, GParamSpec * pspec,
    const GValue * value);
gboolean gst_am_net_config_get_property (const GstAmNetConfig * net, GParamSpec * pspec,
    GValue * value);

void gst_am_net_config_init (GstAmNetConfig * c);
void gst_am_net_config_clear (GstAmNetConfig * c);
gboolean gst_am_address_is_multicast (const gchar * address);

/* Make a named child element or post an error on `bin` and return NULL. */
GstElement *gst_am_make (GstBin * bin, const gchar * factory, const gchar * name);
/* A ghost pad without target from a static template; drops the template's floating ref, which
 * gst_ghost_pad_new_no_target_from_template does not take (it leaked once per element). */
GstPad *gst_am_ghost_pad_from_static (const gchar * name, GstStaticPadTemplate * t);
/* udpsrc listening on cfg->address (joins it when multicast; binds 0.0.0.0 otherwise). */
void gst_am_net_setup_udpsrc (GstElement * udpsrc, const GstAmNetConfig * c, gint port);
/* Joins (starts) or leaves (stops: its sockets close, the kernel sends the IGMP leave) the
 * group of a child of a running bin - a udpsrc, or a bin of them (asspsrc's streams) - and
 * keeps it so across the bin's state changes (locked state). Not from the child's streaming
 * threads. */
void gst_am_set_joined (GstElement * child, gboolean joined);
/* udpsink sending to host:port (no sync, no join: the udpsrc joins). */
void gst_am_net_setup_udpsink (GstElement * udpsink, const GstAmNetConfig * c,
    const gchar * host, gint port);
/* After NULL->READY: make the RTCP udpsink send from the RTCP udpsrc's socket (as RIST does),
 * so peers see one address per participant. */
void gst_am_net_share_socket (GstElement * udpsrc, GstElement * udpsink);

/* rtpbin session 0 helpers. */
GObject *gst_am_internal_session (GstElement * rtpbin);      /* RTPSession, ref'd */
void gst_am_set_rtcp_interval (GstElement * rtpbin, guint ms);
guint32 gst_am_internal_ssrc (GstElement * rtpbin);
/* Our SSRC as last seen in our own RTCP (*own, guarded by lock), or the session's until we
 * have sent any. Call without holding lock (the session takes its own lock). */
guint32 gst_am_own_ssrc (GMutex * lock, guint32 * own, GstElement * rtpbin);
/* The RTCP BYE of a receiver that stops (issue 8). rtpsession says BYE only when its send-RTP
 * path ends (EOS on send_rtp_sink) or at an SSRC collision: a member that only receives never
 * does, and its sender noticed the leave only when it expired it. gst_am_rtcp_new_bye makes
 * the compound packet of RFC 3550 6.1: an empty RR, SDES CNAME (when cname is not NULL), BYE. */
GstBuffer *gst_am_rtcp_new_bye (guint32 ssrc, const gchar * cname);
/* The same for ssrc with the session's CNAME. */
GstBuffer *gst_am_rtcp_session_bye (GObject * session, guint32 ssrc);
/* Sends a packet we made ourselves (the BYE, protected when srtp-key is set) from the RTCP
 * udpsrc's socket, the one the RTCP udpsink shares (the address peers know us by), to the
 * udpsink's host and port: the path of our RRs, open until the udpsrc closes (READY -> NULL),
 * also once EOS has ended the udpsink. A host name is resolved to an address of the socket's
 * family (IPv4 or IPv6). FALSE when there is no socket or such address or the send failed. */
gboolean gst_am_rtcp_send_raw (GstElement * rtcp_src, GstElement * rtcp_sink, GstBuffer * pkt);

/* What rtpsession's RTCP interval (rtp_stats_calculate_rtcp_interval) depends on, read from
 * the session: members = num-active-sources, senders among its sources, the RTP bandwidth
 * (the bandwidth property, or when 0 the sum of the sources' bitrates, 64 kbit/s at least, as
 * rtpsession estimates it), rtcp-fraction and rtcp-min-interval. */
typedef struct {
  guint members, senders;
  gdouble rtp_bps;
  gdouble rtcp_fraction;  /* < 1: of rtp_bps; >= 1: bit/s of RTCP */
  gint64 min_interval;    /* ns */
} GstAmSessionLoad;
gboolean gst_am_session_load (GObject * session, GstAmSessionLoad * l);
/* SSRC of the first packet of a compound RTCP buffer, 0 if unreadable. */
guint32 gst_am_rtcp_first_ssrc (GstBuffer * buf);
/* Appends a PLI (RFC 4585 6.3.1: "send me a key frame") for media_ssrc to a compound RTCP
 * packet about to leave; FALSE if it does not fit. */
gboolean gst_am_rtcp_add_pli (GstBuffer * buf, guint32 own_ssrc, guint32 media_ssrc);

/* The one time source of the elements: GStreamer's system clock (ns), the clock rtpsession's
 * RTCP timer, the pacer and gst_am_timer_* wait on. Everything lib/cc is given comes from it, so
 * a test that installs a GstTestClock as the system clock (gst_system_clock_set_default) drives
 * the elements' algorithms too. */
gint64 gst_am_now (void);
/* A time of gst_am_now() as wall-clock ns (Unix epoch), for what leaves the process: traces and
 * their stats rows, the send-time RTP extension, A of eq. 9 against rtpsession's NTP-time SRs. */
gint64 gst_am_wall (gint64 now);

/* Adds the NTP-64 send time and the extended sequence number to an RTP buffer (made writable;
 * *buf may be replaced). Returns FALSE if it is not an RTP packet. */
gboolean gst_am_rtp_stamp (GstBuffer ** buf, gint64 now_ns, guint32 extseq);
/* The same on an RTP buffer already mapped READWRITE. */
struct _GstRTPBuffer;
gboolean gst_am_rtp_stamp_mapped (struct _GstRTPBuffer * rtp, gint64 now_ns, guint32 extseq);

typedef struct {
  guint32 ssrc;
  guint16 seq;
  guint32 rtp_ts;
  guint8 pt;
  gsize size;             /* whole RTP packet, bytes */
  gboolean has_send_time;
  gint64 send_time_ns;    /* the sender's wall clock, moved onto our gst_am_now() time line */
  gboolean has_extseq;
  guint32 extseq;
} GstAmRtpInfo;
/* Reads the header fields and our extensions; FALSE if not a valid RTP packet. */
gboolean gst_am_rtp_read (GstBuffer * buf, GstAmRtpInfo * info);


/* One-shot timers on the system clock (the clock rtpsession's RTCP timer uses, so tests that
 * install a GstTestClock as the system clock drive both). cb runs on the clock thread with a
 * ref on obj; returns the id (stop it with gst_am_timer_stop). */
/* Asks rtpsession for an early RTCP packet (send-rtcp-full); logs whether it was scheduled. */
void gst_am_request_early_rtcp (GObject * session, GstObject * who, const gchar * why);
GstClockID gst_am_timer_start (gint64 delay_ns, GstClockCallback cb, GstObject * obj);
void gst_am_timer_stop (GstClockID * id);

/* EOS guard for a bin's RTCP udpsink: rtpsession (1.22) sometimes misses the wake-up that
 * sends its BYE and the EOS on its RTCP pad after EOS on the RTP path (plain rtpbin: 4 of 12
 * runs), and the pipeline never finishes. Armed at that EOS, it sends the EOS to the RTCP sink
 * itself if none has passed after `delay`. */
typedef struct {
  GMutex lock;
  GstElement *sink;       /* not ref'd: a child of the bin */
  GstObject *owner;
  GstClockID id;
  gboolean seen_eos;
  GstPad *pad;            /* the sink's, with our probe (removed by clear) */
  gulong probe;
} GstAmEosGuard;
void gst_am_eos_guard_init (GstAmEosGuard * g, GstObject * owner, GstElement * rtcp_sink);
void gst_am_eos_guard_arm (GstAmEosGuard * g, gint64 delay_ns);
void gst_am_eos_guard_reset (GstAmEosGuard * g);
void gst_am_eos_guard_clear (GstAmEosGuard * g);

/* H.264 RTP payload (RFC 6184): does this packet start a key frame (an SPS, or an IDR slice)?
 * Single NAL units, STAP-A (its first NAL) and FU-A start fragments; never reads past len. */
gboolean gst_am_h264_key_start (const guint8 * payload, gsize len);

G_END_DECLS
#endif
