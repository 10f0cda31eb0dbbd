/* gstasspsrc.c - asspsrc: receives the stream of an ASSP simulcast (asspsimulcast) that its path
 * carries, and outputs it as one continuous RTP stream a plain depayloader and decoder play
 * across switches (one SSRC, continuous sequence numbers and timestamps, as SFUs rewrite when
 * they switch simulcast layers).
 *
 *   asspsrc streams=239.1.2.3:5004,239.1.2.4:5006,239.1.2.5:5008 ! rtph264depay ! avdec_h264 ! ...
 *
 * Inside: one asmpsrc per stream ("stream_N", joined only while needed) -> funnel -> ghost src.
 * lib/cc's ASSP receiver (one, lent to the stream being measured) decides which stream it wants;
 * the bin then joins that stream's group, waits for its first key frame, switches the output
 * there, tells lib/cc (amcc_receiver_set_stream) and leaves the old group. Starts on stream 0.
 * EOS: the stream output decides, since a stream not joined never ends. An event sent to the
 * bin goes to that stream's asmpsrc only (the others' sockets may be closed); its EOS is also
 * given to every other funnel input (funnel waits for all), and its EOS message (its RTCP sink
 * has ended too) is the bin's (GstBin would wait for every asmpsrc's). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstasspsrc.h"

#include <amcc/assp.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include "../asmpsrc/gstasmpsrc.h"
#include "../common/gstamcc.h"
#include "../common/gstamnet.h"
#include "../common/gstamsrtp.h"

GST_DEBUG_CATEGORY_STATIC (asspsrc_debug);
#define GST_CAT_DEFAULT asspsrc_debug

#define DEFAULT_STREAMS "239.1.2.3:5004,239.1.2.4:5006,239.1.2.5:5008"
#define DEFAULT_CAPS "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96"
#define DEFAULT_LATENCY_MS 200
/* a stream joined ahead that shows no key frame this long is given up (then decided again) */
#define JOIN_TIMEOUT_NS (10 * GST_SECOND)

enum {
  PROP_0, PROP_STREAMS, PROP_MULTICAST_IFACE, PROP_TTL_MC, PROP_LOOP, PROP_CAPS,
  PROP_RTCP_INTERVAL, PROP_LATENCY, PROP_TRACE_DIR, PROP_STREAM, PROP_SWITCHES, PROP_KEY_REQUESTS,
  N_PROPS
};
#define PROP_SRTP_KEY N_PROPS   /* srtp-key, handed to every stream's asmpsrc */
static GParamSpec *props[N_PROPS];

typedef struct { gchar *address; gint port; } StreamAddr;

struct _GstAsspSrc {
  GstBin parent;
  GstElement *funnel;
  GstPad *srcpad;

  GMutex lock;                  /* properties */
  gchar *streams;
  gchar *iface, *trace_dir;
  gint ttl;
  gboolean loop;
  GstCaps *caps;
  guint rtcp_interval_ms, latency_ms;
  gchar *srtp_key;

  GMutex cc_lock;               /* the streams' state and everything below */
  guint n;
  GstElement *child[AMCC_ASSP_MAX_STREAMS];
  GstPad *funnel_pad[AMCC_ASSP_MAX_STREAMS];
  GstAmCcReceiver *cc;
  gint active, joining;         /* stream output and measured; stream joined ahead, -1 none */
  gint64 decided_at;
  gboolean key_asked;           /* a key frame was requested from the stream joined ahead */
  guint64 key_requests;
  gboolean h264;
  guint clock_rate;
  gboolean have_out;            /* output rewriting: out = in + offset */
  guint16 last_seq, seq_off;
  guint32 last_ts, ts_off, out_ssrc;
  GstClockTime last_pts;
  guint64 switches;
  gboolean eos;                 /* EOS sent or seen on the stream output: no more switching */
};

G_DEFINE_TYPE (GstAsspSrc, gst_assp_src, GST_TYPE_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (asspsrc, "asspsrc", GST_RANK_NONE,
    GST_TYPE_ASSP_SRC, GST_DEBUG_CATEGORY_INIT (asspsrc_debug, "asspsrc", 0,
        "ASSP simulcast RTP receiver"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

/* ---------------------------------------------------------------- key frames */

static gboolean
key_start (GstAsspSrc * self, GstBuffer * buf)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  gboolean key;

  if (!self->h264)
    return TRUE;                /* other codecs: switch at once (the decoder resyncs) */
  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp))
    return FALSE;
  key = gst_am_h264_key_start (gst_rtp_buffer_get_payload (&rtp),
      gst_rtp_buffer_get_payload_len (&rtp));
  gst_rtp_buffer_unmap (&rtp);
  return key;
}

/* ---------------------------------------------------------------- joining and leaving */

static void
join_async (GstElement * element, gpointer data)
{
  GstAsspSrc *self = GST_ASSP_SRC (element);
  guint j = GPOINTER_TO_UINT (data);
  GstElement *c;

  g_mutex_lock (&self->cc_lock);
  c = j < self->n && self->child[j] ? gst_object_ref (self->child[j]) : NULL;
  g_mutex_unlock (&self->cc_lock);
  if (!c)
    return;
  GST_INFO_OBJECT (self, "joining stream %u", j);
  gst_am_set_joined (c, TRUE);
  gst_object_unref (c);
}

static void
leave_async (GstElement * element, gpointer data)
{
  GstAsspSrc *self = GST_ASSP_SRC (element);
  guint j = GPOINTER_TO_UINT (data);
  GstElement *c;

  g_mutex_lock (&self->cc_lock);
  c = j < self->n && self->child[j] && (gint) j != self->active && (gint) j != self->joining
      ? gst_object_ref (self->child[j]) : NULL;
  g_mutex_unlock (&self->cc_lock);
  if (!c)
    return;
  GST_INFO_OBJECT (self, "leaving stream %u", j);
  gst_am_set_joined (c, FALSE);
  gst_object_unref (c);
}

/* ---------------------------------------------------------------- output */

/* one SSRC, continuous sequence numbers and timestamps across switches */
static void
rewrite_locked (GstAsspSrc * self, GstBuffer * buf, gboolean switching)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint16 seq;
  guint32 ts;
  GstClockTime pts = GST_BUFFER_PTS (buf);

  if (!gst_rtp_buffer_map (buf, GST_MAP_READWRITE, &rtp))
    return;
  seq = gst_rtp_buffer_get_seq (&rtp);
  ts = gst_rtp_buffer_get_timestamp (&rtp);
  if (switching && self->have_out) {
    guint64 d = self->clock_rate / 25;  /* one frame when the times are unknown */
    if (GST_CLOCK_TIME_IS_VALID (pts) && GST_CLOCK_TIME_IS_VALID (self->last_pts)
        && pts > self->last_pts)
      d = gst_util_uint64_scale (pts - self->last_pts, self->clock_rate, GST_SECOND);
    self->seq_off = (guint16) (self->last_seq + 1 - seq);
    self->ts_off = (guint32) (self->last_ts + d - ts);
  }
  seq += self->seq_off;
  ts += self->ts_off;
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_ssrc (&rtp, self->out_ssrc);
  gst_rtp_buffer_unmap (&rtp);
  self->last_seq = seq;
  self->last_ts = ts;
  if (GST_CLOCK_TIME_IS_VALID (pts))
    self->last_pts = pts;
  self->have_out = TRUE;
}

typedef struct { GstAsspSrc *self; guint index; } StreamRef;

/* A buffer leaving stream j's asmpsrc: the stream output passes (rewritten), the stream joined
 * ahead takes over at its first key frame, anything else is dropped. */
static GstPadProbeReturn
out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  StreamRef *ref = data;
  GstAsspSrc *self = ref->self;
  gint j = (gint) ref->index, old = -1, join = -1, given_up = -1;
  gboolean ask_key = FALSE;
  gint64 now = gst_am_now (), decided = 0;
  GstBuffer *buf;
  GstPadProbeReturn ret = GST_PAD_PROBE_DROP;

  if (!(info->type & GST_PAD_PROBE_TYPE_BUFFER))
    return (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
  g_mutex_lock (&self->cc_lock);
  if (self->eos && j != self->active) {
    ;                                 /* ending: no switch any more (dropped) */
  } else if (j == self->active) {
    amcc_receiver *rx = self->cc ? gst_am_cc_receiver_controller (self->cc) : NULL;
    gint w = rx ? (gint) amcc_receiver_wanted_stream (rx) : j;
    if (self->eos) {
      ;                               /* ending: joins nothing */
    } else if (self->joining < 0 && w != j && w < (gint) self->n) {
      self->joining = join = w;
      self->decided_at = now;
      self->key_asked = FALSE;
    } else if (self->joining >= 0 && now - self->decided_at > JOIN_TIMEOUT_NS) {
      given_up = self->joining;       /* no key frame came: leave it, decide again */
      self->joining = -1;
      if (rx)                         /* cancels the wish; the measurement goes on */
        amcc_receiver_set_stream (rx, now, (guint32) j);
    }
    buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
    GST_PAD_PROBE_INFO_DATA (info) = buf;
    rewrite_locked (self, buf, FALSE);
    ret = GST_PAD_PROBE_OK;
  } else if (j == self->joining && key_start (self, GST_PAD_PROBE_INFO_BUFFER (info))) {
    old = self->active;
    self->active = j;
    self->joining = -1;
    self->switches++;
    decided = self->decided_at;
    gst_asmp_src_lend_controller (GST_ASMP_SRC (self->child[old]), NULL);
    gst_asmp_src_lend_controller (GST_ASMP_SRC (self->child[j]), self->cc);
    if (self->cc)
      amcc_receiver_set_stream (gst_am_cc_receiver_controller (self->cc), now, (guint32) j);
    buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
    GST_PAD_PROBE_INFO_DATA (info) = buf;
    rewrite_locked (self, buf, TRUE);
    ret = GST_PAD_PROBE_OK;
  } else if (j == self->joining && self->h264 && !self->key_asked) {
    /* its sender is known now: ask it for a key frame instead of waiting up to a GOP */
    self->key_asked = ask_key = TRUE;
    self->key_requests++;
  }
  g_mutex_unlock (&self->cc_lock);
  if (ask_key) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    if (gst_rtp_buffer_map (GST_PAD_PROBE_INFO_BUFFER (info), GST_MAP_READ, &rtp)) {
      gst_asmp_src_request_key_frame (GST_ASMP_SRC (GST_PAD_PARENT (pad)),
          gst_rtp_buffer_get_ssrc (&rtp));
      gst_rtp_buffer_unmap (&rtp);
    }
  }
  if (join >= 0)
    gst_element_call_async (GST_ELEMENT (self), join_async, GUINT_TO_POINTER (join), NULL);
  if (given_up >= 0) {
    GST_WARNING_OBJECT (self, "stream %d showed no key frame: not switching", given_up);
    gst_element_call_async (GST_ELEMENT (self), leave_async, GUINT_TO_POINTER (given_up), NULL);
  }
  if (old >= 0) {
    gdouble gap = (now - decided) / 1e9;
    GST_INFO_OBJECT (self, "switched %d -> %d, %.3f s after the decision", old, j, gap);
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("asspsrc-switch", "from", G_TYPE_UINT, (guint) old, "to",
                G_TYPE_UINT, (guint) j, "time", G_TYPE_DOUBLE, gst_am_wall (now) / 1e9,
                "decided", G_TYPE_DOUBLE, gst_am_wall (decided) / 1e9, "gap-s", G_TYPE_DOUBLE,
                gap, NULL)));
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_STREAM]);
    gst_element_call_async (GST_ELEMENT (self), leave_async, GUINT_TO_POINTER (old), NULL);
  }
  return ret;
}

/* EOS leaving stream j's asmpsrc. The stream output's ends the output: funnel passes an EOS on
 * only once every input has had one, so the other inputs are given one first (a stream never
 * joined, or left, sends none). Another stream's EOS passes: funnel only records it. */
static GstPadProbeReturn
eos_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  StreamRef *ref = data;
  GstAsspSrc *self = ref->self;
  GstPad *others[AMCC_ASSP_MAX_STREAMS];
  guint i, n = 0;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) != GST_EVENT_EOS)
    return GST_PAD_PROBE_OK;
  g_mutex_lock (&self->cc_lock);
  if ((gint) ref->index == self->active) {
    self->eos = TRUE;
    for (i = 0; i < self->n; i++)
      if (i != ref->index && self->funnel_pad[i])
        others[n++] = gst_object_ref (self->funnel_pad[i]);
  }
  g_mutex_unlock (&self->cc_lock);
  for (i = 0; i < n; i++) {
    if (!GST_PAD_IS_EOS (others[i]))
      gst_pad_send_event (others[i], gst_event_new_eos ());
    gst_object_unref (others[i]);
  }
  if (n)
    GST_INFO_OBJECT (self, "EOS on stream %u, the stream output", ref->index);
  return GST_PAD_PROBE_OK;
}

/* ---------------------------------------------------------------- streams */

static void
addrs_free (GArray * a)
{
  guint i;
  for (i = 0; i < a->len; i++)
    g_free (g_array_index (a, StreamAddr, i).address);
  g_array_free (a, TRUE);
}

/* "addr:port,addr:port,..." -> 1..AMCC_ASSP_MAX_STREAMS entries, NULL and *why on error */
static GArray *
parse_streams (const gchar * s, gchar ** why)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (StreamAddr));
  gchar **items = g_strsplit (s ? s : "", ",", -1);
  guint i;

  for (i = 0; items[i]; i++) {
    gchar *colon = strrchr (items[i], ':'), *end = NULL;
    glong port = colon ? strtol (colon + 1, &end, 10) : 0;
    StreamAddr e;
    if (!colon || colon == items[i] || !end || *end || port < 1 || port > 65534) {
      *why = g_strdup_printf ("stream %u '%s': want address:port (port 1-65534)", i, items[i]);
      break;
    }
    e.address = g_strndup (items[i], colon - items[i]);
    e.port = (gint) port;
    g_array_append_val (a, e);
  }
  if (!*why && (a->len == 0 || a->len > AMCC_ASSP_MAX_STREAMS))
    *why = g_strdup_printf ("%u streams: want 1 to %d", a->len, AMCC_ASSP_MAX_STREAMS);
  g_strfreev (items);
  if (*why) {
    addrs_free (a);
    return NULL;
  }
  return a;
}

static gboolean
build_streams (GstAsspSrc * self)
{
  gchar *why = NULL;
  GArray *a;
  GstAmCcConfig cfg = { 0 };
  gint rate = 90000;
  const gchar *enc = NULL;
  guint i;

  g_mutex_lock (&self->lock);
  if (!gst_am_srtp_check_key (GST_ELEMENT (self), self->srtp_key)) {
    g_mutex_unlock (&self->lock);
    return FALSE;
  }
  a = parse_streams (self->streams, &why);
  if (!a) {
    g_mutex_unlock (&self->lock);
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL), ("streams: %s", why));
    g_free (why);
    return FALSE;
  }
  if (gst_caps_get_size (self->caps) > 0) {
    GstStructure *st = gst_caps_get_structure (self->caps, 0);
    gst_structure_get_int (st, "clock-rate", &rate);
    enc = gst_structure_get_string (st, "encoding-name");
  }
  g_mutex_lock (&self->cc_lock);
  self->h264 = enc && g_ascii_strcasecmp (enc, "H264") == 0;
  self->clock_rate = rate > 0 ? (guint) rate : 90000;
  cfg.protocol = amcc_protocol_find ("assp");
  cfg.rtcp_interval_ms = self->rtcp_interval_ms;
  cfg.clock_rate = self->clock_rate;
  /* the streams' RTCP meets the guard of this receiver, which we lend them: asmpsrc's caps */
  cfg.max_ssrcs_per_host = GST_AM_GUARD_MAX_PER_HOST;
  cfg.max_unproven_members = GST_AM_GUARD_MAX_UNPROVEN;
  self->cc = gst_am_cc_receiver_new (&cfg, gst_am_now (), 0);
  self->n = a->len;
  self->active = 0;
  self->joining = -1;
  self->have_out = FALSE;
  self->seq_off = 0;
  self->ts_off = 0;
  self->last_pts = GST_CLOCK_TIME_NONE;
  self->out_ssrc = g_random_int ();
  self->switches = 0;
  self->key_requests = 0;
  self->eos = FALSE;
  for (i = 0; i < a->len; i++) {
    StreamAddr *e = &g_array_index (a, StreamAddr, i);
    gchar *name = g_strdup_printf ("stream_%u", i), *dir = NULL;
    GstElement *c = gst_element_factory_make ("asmpsrc", name);
    GstPad *src;
    StreamRef *ref;
    g_free (name);
    if (!c)
      break;
    if (self->trace_dir) {
      dir = g_strdup_printf ("%s/stream%u", self->trace_dir, i);
      g_mkdir_with_parents (dir, 0755);
    }
    g_object_set (c, "address", e->address, "port", e->port, "multicast-iface", self->iface,
        "ttl-mc", self->ttl, "loop", self->loop, "caps", self->caps, "rtcp-interval",
        self->rtcp_interval_ms, "latency", self->latency_ms, "trace-dir", dir, "srtp-key",
        self->srtp_key, NULL);
    g_free (dir);
    /* after its properties: from now on it takes our cc_lock, which we hold */
    gst_asmp_src_join_group (GST_ASMP_SRC (c), &self->cc_lock, cfg.protocol);
    gst_element_set_locked_state (c, i != 0);     /* only stream 0 is joined at first */
    gst_bin_add (GST_BIN (self), c);
    self->child[i] = c;
    self->funnel_pad[i] = gst_element_request_pad_simple (self->funnel, "sink_%u");
    src = gst_element_get_static_pad (c, "src");
    gst_pad_link (src, self->funnel_pad[i]);
    ref = g_new (StreamRef, 1);
    ref->self = self;
    ref->index = i;
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
        out_probe, ref, g_free);
    ref = g_new (StreamRef, 1);
    ref->self = self;
    ref->index = i;
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, eos_probe, ref, g_free);
    gst_object_unref (src);
  }
  if (self->child[0] && self->cc)
    gst_asmp_src_lend_controller (GST_ASMP_SRC (self->child[0]), self->cc);
  i = self->n;
  g_mutex_unlock (&self->cc_lock);
  g_mutex_unlock (&self->lock);
  addrs_free (a);
  if (!self->cc || !self->child[i - 1]) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, (NULL), ("could not make the streams' receivers"));
    return FALSE;
  }
  return TRUE;
}

static void
remove_streams (GstAsspSrc * self)
{
  GstElement *c[AMCC_ASSP_MAX_STREAMS];
  GstPad *fp[AMCC_ASSP_MAX_STREAMS];
  GstAmCcReceiver *cc;
  guint i, n;

  g_mutex_lock (&self->cc_lock);
  n = self->n;
  memcpy (c, self->child, sizeof c);
  memcpy (fp, self->funnel_pad, sizeof fp);
  memset (self->child, 0, sizeof self->child);
  memset (self->funnel_pad, 0, sizeof self->funnel_pad);
  self->n = 0;
  cc = self->cc;
  self->cc = NULL;
  for (i = 0; i < n; i++)
    if (c[i])
      gst_asmp_src_lend_controller (GST_ASMP_SRC (c[i]), NULL);
  g_mutex_unlock (&self->cc_lock);
  for (i = 0; i < n; i++) {
    if (c[i]) {
      gst_element_set_locked_state (c[i], FALSE);
      gst_element_set_state (c[i], GST_STATE_NULL);
      gst_bin_remove (GST_BIN (self), c[i]);
    }
    if (fp[i]) {
      gst_element_release_request_pad (self->funnel, fp[i]);
      gst_object_unref (fp[i]);
    }
  }
  if (cc)
    gst_am_cc_receiver_free (cc);
}

static GstStateChangeReturn
change_state (GstElement * element, GstStateChange transition)
{
  GstAsspSrc *self = GST_ASSP_SRC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !build_streams (self)) {
    remove_streams (self);
    return GST_STATE_CHANGE_FAILURE;
  }
  ret = GST_ELEMENT_CLASS (gst_assp_src_parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL
      || (transition == GST_STATE_CHANGE_NULL_TO_READY && ret == GST_STATE_CHANGE_FAILURE))
    remove_streams (self);
  return ret;
}

/* A downstream event sent to the bin (the application's EOS at a stop) goes to the stream
 * output's asmpsrc alone: the others are not running (GstBin would send it to all, and an EOS
 * into a udpsrc never started trips a g_object_unref critical) or are joined ahead, a switch
 * that an EOS ends (out_probe drops them from then on). */
static gboolean
send_event (GstElement * element, GstEvent * event)
{
  GstAsspSrc *self = GST_ASSP_SRC (element);
  GstElement *c = NULL;
  gboolean ok = FALSE;

  if (!GST_EVENT_IS_DOWNSTREAM (event))
    return GST_ELEMENT_CLASS (gst_assp_src_parent_class)->send_event (element, event);
  g_mutex_lock (&self->cc_lock);
  if (self->active >= 0 && self->active < (gint) self->n && self->child[self->active])
    c = gst_object_ref (self->child[self->active]);
  if (c && GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    self->eos = TRUE;
  g_mutex_unlock (&self->cc_lock);
  if (c) {
    ok = gst_element_send_event (c, event);
    gst_object_unref (c);
  } else {
    gst_event_unref (event);
  }
  return ok;
}

/* The stream output's EOS message is ours; the other streams' are dropped (they end only if
 * joined ahead, and GstBin would post a second EOS once all had). */
static void
handle_message (GstBin * bin, GstMessage * m)
{
  GstAsspSrc *self = GST_ASSP_SRC (bin);
  gboolean out;

  if (GST_MESSAGE_TYPE (m) != GST_MESSAGE_EOS) {
    GST_BIN_CLASS (gst_assp_src_parent_class)->handle_message (bin, m);
    return;
  }
  g_mutex_lock (&self->cc_lock);
  out = self->active >= 0 && self->active < (gint) self->n
      && GST_MESSAGE_SRC (m) == GST_OBJECT_CAST (self->child[self->active]);
  g_mutex_unlock (&self->cc_lock);
  if (out) {
    GstMessage *eos = gst_message_new_eos (GST_OBJECT (bin));
    gst_message_set_seqnum (eos, gst_message_get_seqnum (m));
    GST_INFO_OBJECT (self, "EOS");
    gst_element_post_message (GST_ELEMENT (bin), eos);
  }
  gst_message_unref (m);
}

/* ---------------------------------------------------------------- properties */

static void
set_property (GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  GstAsspSrc *self = GST_ASSP_SRC (object);

  g_mutex_lock (&self->lock);
  switch (id) {
    case PROP_STREAMS:
      g_free (self->streams);
      self->streams = g_value_dup_string (value);
      break;
    case PROP_MULTICAST_IFACE:
      g_free (self->iface);
      self->iface = g_value_dup_string (value);
      break;
    case PROP_TTL_MC: self->ttl = g_value_get_int (value); break;
    case PROP_LOOP: self->loop = g_value_get_boolean (value); break;
    case PROP_CAPS:
      gst_caps_replace (&self->caps, (GstCaps *) gst_value_get_caps (value));
      if (!self->caps)
        self->caps = gst_caps_from_string (DEFAULT_CAPS);
      break;
    case PROP_RTCP_INTERVAL: self->rtcp_interval_ms = g_value_get_uint (value); break;
    case PROP_LATENCY: self->latency_ms = g_value_get_uint (value); break;
    case PROP_SRTP_KEY:
      g_free (self->srtp_key);
      self->srtp_key = g_value_dup_string (value);
      break;
    case PROP_TRACE_DIR:
      g_free (self->trace_dir);
      self->trace_dir = g_value_dup_string (value);
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
  }
  g_mutex_unlock (&self->lock);
}

static void
get_property (GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  GstAsspSrc *self = GST_ASSP_SRC (object);

  if (id == PROP_STREAM || id == PROP_SWITCHES || id == PROP_KEY_REQUESTS) {
    g_mutex_lock (&self->cc_lock);
    if (id == PROP_STREAM)
      g_value_set_uint (value, (guint) self->active);
    else
      g_value_set_uint64 (value, id == PROP_SWITCHES ? self->switches : self->key_requests);
    g_mutex_unlock (&self->cc_lock);
    return;
  }
  g_mutex_lock (&self->lock);
  switch (id) {
    case PROP_STREAMS: g_value_set_string (value, self->streams); break;
    case PROP_MULTICAST_IFACE: g_value_set_string (value, self->iface); break;
    case PROP_TTL_MC: g_value_set_int (value, self->ttl); break;
    case PROP_LOOP: g_value_set_boolean (value, self->loop); break;
    case PROP_CAPS: gst_value_set_caps (value, self->caps); break;
    case PROP_RTCP_INTERVAL: g_value_set_uint (value, self->rtcp_interval_ms); break;
    case PROP_LATENCY: g_value_set_uint (value, self->latency_ms); break;
    case PROP_TRACE_DIR: g_value_set_string (value, self->trace_dir); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_assp_src_init (GstAsspSrc * self)
{
  GstPad *pad;

  g_mutex_init (&self->lock);
  g_mutex_init (&self->cc_lock);
  self->streams = g_strdup (DEFAULT_STREAMS);
  self->ttl = 1;
  self->caps = gst_caps_from_string (DEFAULT_CAPS);
  self->rtcp_interval_ms = GST_AM_DEFAULT_RTCP_INTERVAL_MS;
  self->latency_ms = DEFAULT_LATENCY_MS;
  self->joining = -1;
  self->funnel = gst_am_make (GST_BIN (self), "funnel", "funnel");
  self->srcpad = gst_am_ghost_pad_from_static ("src", &src_template);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
  if (!self->funnel)
    return;
  pad = gst_element_get_static_pad (self->funnel, "src");
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), pad);
  gst_object_unref (pad);
}

static void
finalize (GObject * object)
{
  GstAsspSrc *self = GST_ASSP_SRC (object);

  g_free (self->streams);
  g_free (self->srtp_key);
  g_free (self->iface);
  g_free (self->trace_dir);
  gst_clear_caps (&self->caps);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->cc_lock);
  G_OBJECT_CLASS (gst_assp_src_parent_class)->finalize (object);
}

static void
gst_assp_src_class_init (GstAsspSrcClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  oc->set_property = set_property;
  oc->get_property = get_property;
  oc->finalize = finalize;
  ec->change_state = change_state;
  ec->send_event = send_event;
  GST_BIN_CLASS (klass)->handle_message = handle_message;

  props[PROP_STREAMS] = g_param_spec_string ("streams", "Streams",
      "The simulcast's streams, lowest first: address:port,address:port,... (RTCP on port + 1; "
      "asspsimulcast's defaults for 3 streams)", DEFAULT_STREAMS, rw);
  props[PROP_MULTICAST_IFACE] = g_param_spec_string ("multicast-iface", "Multicast interface",
      "Network interface to join the groups on (NULL: the kernel's choice)", NULL, rw);
  props[PROP_TTL_MC] = g_param_spec_int ("ttl-mc", "Multicast TTL",
      "TTL of the multicast RTCP this receiver sends (hops)", 0, 255, 1, rw);
  props[PROP_LOOP] = g_param_spec_boolean ("loop", "Multicast loop",
      "Loop our multicast RTCP back to this host (others in the same network namespace)",
      FALSE, rw);
  props[PROP_CAPS] = g_param_spec_boxed ("caps", "Caps",
      "RTP caps of the streams (default " DEFAULT_CAPS "); with H264 the output switches at "
      "the new stream's first SPS or IDR, otherwise at once", GST_TYPE_CAPS, rw);
  props[PROP_RTCP_INTERVAL] = g_param_spec_uint ("rtcp-interval", "RTCP interval",
      "Minimum RTCP interval of each stream's session (ms)", 1, 600000,
      GST_AM_DEFAULT_RTCP_INTERVAL_MS, rw);
  props[PROP_LATENCY] = g_param_spec_uint ("latency", "Latency",
      "Jitterbuffer latency (ms)", 0, G_MAXUINT, DEFAULT_LATENCY_MS, rw);
  props[PROP_TRACE_DIR] = g_param_spec_string ("trace-dir", "Trace directory",
      "Each stream's rd.txt and stats.csv go to <trace-dir>/stream<N> (NULL: no traces)",
      NULL, rw);
  props[PROP_STREAM] = g_param_spec_uint ("stream", "Stream",
      "The stream being output (0 = the lowest; notifies on a switch)", 0,
      AMCC_ASSP_MAX_STREAMS - 1, 0, ro);
  props[PROP_SWITCHES] = g_param_spec_uint64 ("switches", "Switches",
      "Switches of the output so far", 0, G_MAXUINT64, 0, ro);
  props[PROP_KEY_REQUESTS] = g_param_spec_uint64 ("key-requests", "Key-frame requests",
      "Key frames asked of streams joined ahead (H.264: an RTCP PLI at the stream's first "
      "packet that does not start one)", 0, G_MAXUINT64, 0, ro);
  g_object_class_install_properties (oc, N_PROPS, props);
  gst_am_srtp_install_property (oc, PROP_SRTP_KEY);     /* every stream's session */

  gst_element_class_add_static_pad_template (ec, &src_template);
  gst_element_class_set_static_metadata (ec, "ASSP simulcast RTP source", "Source/Network/RTP",
      "Receives the stream of an ASSP simulcast that its path carries, moving between the "
      "streams' multicast groups as its TCP-friendly share changes; outputs one continuous RTP "
      "stream", "gst-amcast <gst-amcast@localhost>");
}
