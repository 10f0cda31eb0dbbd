/* gstamsessionbin.c - the base bin of the RTP-session elements (see gstamsessionbin.h) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamsessionbin.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (am_session_bin_debug);
#define GST_CAT_DEFAULT am_session_bin_debug

typedef struct {
  GstElement *rtpbin;
  GstAmSrtp *srtp;
  GstAmNetConfig net;
  guint n;
  GstAmSession s[GST_AM_SESSION_BIN_MAX];
  gboolean starting;            /* in start: sessions added now are the subclass's dynamic ones */
  gboolean broken;              /* a session of init could not be made: start fails */
  GMutex **lockp;               /* the subclass's, held around its start and stop */
  GMutex join_lock;             /* the sessions' `joined` against set_joined and stop */
} GstAmSessionBinPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstAmSessionBin, gst_am_session_bin, GST_TYPE_BIN,
    G_ADD_PRIVATE (GstAmSessionBin)
    GST_DEBUG_CATEGORY_INIT (am_session_bin_debug, "amsessionbin", 0,
        "base bin of the RTP-session elements"));

#define PRIV(b) ((GstAmSessionBinPrivate *) gst_am_session_bin_get_instance_private (b))

GstElement *
gst_am_session_bin_rtpbin (GstAmSessionBin * bin)
{
  return PRIV (bin)->rtpbin;
}

GstAmSrtp *
gst_am_session_bin_srtp (GstAmSessionBin * bin)
{
  return PRIV (bin)->srtp;
}

GstAmNetConfig *
gst_am_session_bin_net (GstAmSessionBin * bin)
{
  return &PRIV (bin)->net;
}

guint
gst_am_session_bin_n_sessions (GstAmSessionBin * bin)
{
  return PRIV (bin)->n;
}

GstAmSession *
gst_am_session_bin_session (GstAmSessionBin * bin, guint i)
{
  GstAmSessionBinPrivate *p = PRIV (bin);

  return i < p->n ? &p->s[i] : NULL;
}

/* ---- building and removing sessions ---- */

static GstElement *
make_child (GstAmSessionBin * bin, const gchar * factory, const gchar * what,
    const gchar * suffix)
{
  gchar *name = g_strconcat (what, suffix, NULL);
  GstElement *e = gst_am_make (GST_BIN (bin), factory, name);

  g_free (name);
  return e;
}

static gboolean
link_rtpbin (GstElement * src, const gchar * src_pad, GstElement * sink, const gchar * sink_pad,
    guint id)
{
  gchar *a = g_strdup_printf (src_pad, id), *b = g_strdup_printf (sink_pad, id);
  gboolean ok = gst_element_link_pads (src, a, sink, b);

  g_free (a);
  g_free (b);
  return ok;
}

GstAmSession *
gst_am_session_bin_add (GstAmSessionBin * bin, GstAmSessionFlags flags, const gchar * suffix,
    GstElement * feed)
{
  GstAmSessionBinPrivate *p = PRIV (bin);
  GstElement *rb = p->rtpbin;
  GstAmSession *s;
  gboolean ok;

  if (!rb || p->n == GST_AM_SESSION_BIN_MAX || (flags & GST_AM_SESSION_SEND && !feed)) {
    GST_ELEMENT_ERROR (bin, CORE, FAILED, (NULL), ("cannot add RTP session %u", p->n));
    p->broken |= !p->starting;
    return NULL;
  }
  s = &p->s[p->n];
  memset (s, 0, sizeof *s);
  s->id = p->n;
  s->flags = flags;
  s->joined = TRUE;
  s->dynamic = p->starting;
  s->rtcp_sink = make_child (bin, "udpsink", "rtcp_sink", suffix);
  if (flags & GST_AM_SESSION_SEND)
    s->rtp_sink = make_child (bin, "udpsink", "rtp_sink", suffix);
  if (flags & GST_AM_SESSION_RECV)
    s->rtp_src = make_child (bin, "udpsrc", "rtp_src", suffix);
  if (flags & GST_AM_SESSION_RTCP_IN)
    s->rtcp_src = make_child (bin, "udpsrc", "rtcp_src", suffix);
  p->n++;                       /* what was made is removed with it */
  if (!s->rtcp_sink || (flags & GST_AM_SESSION_SEND && !s->rtp_sink)
      || (flags & GST_AM_SESSION_RECV && !s->rtp_src)
      || (flags & GST_AM_SESSION_RTCP_IN && !s->rtcp_src)) {
    p->broken |= !p->starting;
    return NULL;                /* error posted */
  }

  ok = link_rtpbin (rb, "send_rtcp_src_%u", s->rtcp_sink, "sink", s->id);
  if (flags & GST_AM_SESSION_SEND)
    ok = ok && link_rtpbin (feed, "src", rb, "send_rtp_sink_%u", s->id)
        && link_rtpbin (rb, "send_rtp_src_%u", s->rtp_sink, "sink", s->id);
  if (flags & GST_AM_SESSION_RECV)
    ok = ok && link_rtpbin (s->rtp_src, "src", rb, "recv_rtp_sink_%u", s->id);
  if (flags & GST_AM_SESSION_RTCP_IN)
    ok = ok && link_rtpbin (s->rtcp_src, "src", rb, "recv_rtcp_sink_%u", s->id);
  if (!ok) {
    GST_ELEMENT_ERROR (bin, CORE, PAD, (NULL), ("RTP session %u: rtpbin refused a link", s->id));
    p->broken |= !p->starting;
    return NULL;
  }
  gst_am_eos_guard_init (&s->guard, GST_OBJECT (s->rtcp_sink), s->rtcp_sink);
  return s;
}

static void
release_rtpbin_pad (GstElement * rb, const gchar * fmt, guint id)
{
  gchar *name = g_strdup_printf (fmt, id);
  GstPad *pad = gst_element_get_static_pad (rb, name);

  if (pad) {
    gst_element_release_request_pad (rb, pad);
    gst_object_unref (pad);
  }
  g_free (name);
}

/* Removes the sessions from `from` on: their elements and rtpbin's request pads. */
static void
remove_sessions (GstAmSessionBin * bin, guint from)
{
  GstAmSessionBinPrivate *p = PRIV (bin);

  while (p->n > from) {
    GstAmSession *s = &p->s[--p->n];
    GstElement *e[4] = { s->rtp_sink, s->rtp_src, s->rtcp_sink, s->rtcp_src };
    guint k;

    if (s->guard.owner)
      gst_am_eos_guard_clear (&s->guard);
    for (k = 0; k < 4; k++)
      if (e[k]) {
        gst_element_set_locked_state (e[k], TRUE);
        gst_element_set_state (e[k], GST_STATE_NULL);
        gst_bin_remove (GST_BIN (bin), e[k]);
      }
    if (p->rtpbin) {
      release_rtpbin_pad (p->rtpbin, "send_rtp_sink_%u", s->id);
      release_rtpbin_pad (p->rtpbin, "recv_rtp_sink_%u", s->id);
      release_rtpbin_pad (p->rtpbin, "recv_rtcp_sink_%u", s->id);
    }
    memset (s, 0, sizeof *s);
  }
}

static guint
first_dynamic (GstAmSessionBinPrivate * p)
{
  guint i;

  for (i = 0; i < p->n && !p->s[i].dynamic; i++);
  return i;
}

void
gst_am_session_bin_set_address (GstAmSessionBin * bin, GstAmSession * s, const gchar * group,
    gint port, const gchar * rtcp_host)
{
  GstAmNetConfig c = PRIV (bin)->net;

  if (!s || !s->rtcp_sink)
    return;                     /* not made: start fails (PRIV (bin)->broken) */
  c.address = (gchar *) group;  /* the udpsrcs join it when it is multicast */
  if (s->rtp_sink)
    gst_am_net_setup_udpsink (s->rtp_sink, &c, group, port);
  if (s->rtp_src)
    gst_am_net_setup_udpsrc (s->rtp_src, &c, port);
  if (s->rtcp_src)
    gst_am_net_setup_udpsrc (s->rtcp_src, &c, port + 1);
  gst_am_net_setup_udpsink (s->rtcp_sink, &c, rtcp_host ? rtcp_host : group, port + 1);
}

void
gst_am_session_bin_set_lock (GstAmSessionBin * bin, GMutex ** lockp)
{
  PRIV (bin)->lockp = lockp;
}

/* ---- joining and leaving while PLAYING ---- */

void
gst_am_session_bin_set_joined (GstAmSessionBin * bin, GstAmSession * s, gboolean joined)
{
  GstAmSessionBinPrivate *p = PRIV (bin);

  g_mutex_lock (&p->join_lock);
  if (s->rtp_src && s->joined != joined) {
    s->joined = joined;
    GST_INFO_OBJECT (bin, "%s %s", joined ? "joining" : "leaving",
        GST_OBJECT_NAME (s->rtp_src));
    gst_am_set_joined (s->rtp_src, joined);
  }
  g_mutex_unlock (&p->join_lock);
}

void
gst_am_session_bin_arm_eos_guards (GstAmSessionBin * bin, gint64 delay_ns)
{
  GstAmSessionBinPrivate *p = PRIV (bin);
  guint i;

  for (i = 0; i < p->n; i++)
    gst_am_eos_guard_arm (&p->s[i].guard, delay_ns);
}

void
gst_am_session_bin_reset_eos_guards (GstAmSessionBin * bin)
{
  GstAmSessionBinPrivate *p = PRIV (bin);
  guint i;

  for (i = 0; i < p->n; i++)
    gst_am_eos_guard_reset (&p->s[i].guard);
}

/* ---- state ---- */

/* NULL -> READY: the key, the subclass's start, then each session's RTCP socket, opened first
 * so that its RTCP udpsink sends from it */
static gboolean
start (GstAmSessionBin * bin)
{
  GstAmSessionBinClass *klass = GST_AM_SESSION_BIN_GET_CLASS (bin);
  GstAmSessionBinPrivate *p = PRIV (bin);
  gboolean ok;
  guint i;

  if (!p->rtpbin || p->broken) {
    GST_ELEMENT_ERROR (bin, CORE, FAILED, (NULL), ("the RTP sessions could not be made"));
    return FALSE;
  }
  if (!gst_am_srtp_start (p->srtp))
    return FALSE;               /* error posted */
  p->starting = TRUE;
  if (klass->start) {
    GMutex *lock = p->lockp ? *p->lockp : NULL;
    if (lock)
      g_mutex_lock (lock);
    ok = klass->start (bin);
    if (lock)
      g_mutex_unlock (lock);
  } else
    ok = TRUE;
  p->starting = FALSE;
  if (!ok)
    return FALSE;
  for (i = 0; i < p->n; i++) {
    GstAmSession *s = &p->s[i];
    if (s->rtp_src)
      gst_element_set_locked_state (s->rtp_src, !s->joined);
    if (!s->rtcp_src)
      continue;
    if (gst_element_set_state (s->rtcp_src, GST_STATE_READY) == GST_STATE_CHANGE_FAILURE)
      return FALSE;
    gst_am_net_share_socket (s->rtcp_src, s->rtcp_sink);
  }
  return TRUE;
}

static void
stop (GstAmSessionBin * bin)
{
  GstAmSessionBinClass *klass = GST_AM_SESSION_BIN_GET_CLASS (bin);
  GstAmSessionBinPrivate *p = PRIV (bin);
  guint i;

  if (klass->stop) {
    GMutex *lock = p->lockp ? *p->lockp : NULL;
    if (lock)
      g_mutex_lock (lock);
    klass->stop (bin);
    if (lock)
      g_mutex_unlock (lock);
  }
  gst_am_session_bin_reset_eos_guards (bin);
  g_mutex_lock (&p->join_lock);
  remove_sessions (bin, first_dynamic (p));
  for (i = 0; i < p->n; i++)     /* a restart joins again */
    if (p->s[i].rtp_src && !p->s[i].joined) {
      p->s[i].joined = TRUE;
      gst_element_set_locked_state (p->s[i].rtp_src, FALSE);
    }
  g_mutex_unlock (&p->join_lock);
}

static GstStateChangeReturn
change_state (GstElement * element, GstStateChange transition)
{
  GstAmSessionBin *bin = GST_AM_SESSION_BIN (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !start (bin)) {
    stop (bin);
    return GST_STATE_CHANGE_FAILURE;
  }
  if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED)
    gst_am_session_bin_reset_eos_guards (bin);
  ret = GST_ELEMENT_CLASS (gst_am_session_bin_parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL
      || (transition == GST_STATE_CHANGE_NULL_TO_READY && ret == GST_STATE_CHANGE_FAILURE))
    stop (bin);
  return ret;
}

static void
gst_am_session_bin_init (GstAmSessionBin * bin)
{
  GstAmSessionBinPrivate *p = PRIV (bin);

  gst_am_net_config_init (&p->net);
  g_mutex_init (&p->join_lock);
  p->rtpbin = gst_am_make (GST_BIN (bin), "rtpbin", "rtpbin");
  /* before rtpbin's pads are requested: that is when it asks for its encoders and decoders */
  if (p->rtpbin)
    p->srtp = gst_am_srtp_new (GST_ELEMENT (bin), p->rtpbin);
}

/* the guards hang on the RTCP udpsinks, which GstBin's dispose lets go */
static void
dispose (GObject * object)
{
  GstAmSessionBinPrivate *p = PRIV (GST_AM_SESSION_BIN (object));
  guint i;

  for (i = 0; i < p->n; i++)
    if (p->s[i].guard.owner) {
      gst_am_eos_guard_clear (&p->s[i].guard);
      p->s[i].guard.owner = NULL;
    }
  G_OBJECT_CLASS (gst_am_session_bin_parent_class)->dispose (object);
}

static void
finalize (GObject * object)
{
  GstAmSessionBinPrivate *p = PRIV (GST_AM_SESSION_BIN (object));

  gst_am_net_config_clear (&p->net);
  g_mutex_clear (&p->join_lock);
  if (p->srtp)
    gst_am_srtp_free (p->srtp);
  G_OBJECT_CLASS (gst_am_session_bin_parent_class)->finalize (object);
}

static void
gst_am_session_bin_class_init (GstAmSessionBinClass * klass)
{
  G_OBJECT_CLASS (klass)->dispose = dispose;
  G_OBJECT_CLASS (klass)->finalize = finalize;
  GST_ELEMENT_CLASS (klass)->change_state = change_state;
}
