/* gstavmrcsynth.c - avmrcsynth: the synthetic workload of papers/003 4.2 for protocol experiments
 * with avmrclayers: C constant-rate channels (cumulative B_1 = b1, B_i = factor x B_(i-1); the
 * paper: 9 channels, 256 kbit/s, 1.5), packets of at most packet-size bytes, sent in one burst
 * per scheduling period. At most 4 channels: the channel travels as the VP8 descriptor's 2-bit
 * TID (a fifth would be sent as channel 0).
 *
 *   avmrcsynth channels=4 ! avmrclayers layers=4 pacing=false
 *   avmrcsrc layers=4 ! fakesink
 *
 * Each packet is RTP with a minimal VP8 payload descriptor (X, S, T with TID = its channel) so
 * avmrclayers routes it like video, and the marker bit and a timestamp of its own, so avmrcsrc's
 * merge passes it as a whole frame; its payload is zeros (nothing to decode: end in fakesink).
 * Channel i's bytes per period accrue as credit (rate x period / 8) and leave as whole packets,
 * the remainder carried to the next period. Waits on the element's clock. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstavmrcsynth.h"

#include <gst/rtp/gstrtpbuffer.h>
#include <string.h>
#include <amcc/avmrc.h>

GST_DEBUG_CATEGORY_STATIC (avmrcsynth_debug);
#define GST_CAT_DEFAULT avmrcsynth_debug

#define MAX_CH 4                /* the VP8 TID's 2 bits */
#define DEFAULT_PERIOD_MS 100
#define DEFAULT_PACKET 1000
#define DESC_LEN 3              /* X|S, T, TID<<6 */
#define CAPS "application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96"

enum { PROP_0, PROP_CHANNELS, PROP_B1, PROP_FACTOR, PROP_PERIOD, PROP_PACKET, N_PROPS };
static GParamSpec *props[N_PROPS];

struct _GstAvmrcSynth {
  GstPushSrc parent;
  GMutex lock;                  /* properties */
  guint channels, b1, period_ms, packet;
  gdouble factor;
  /* streaming thread */
  double rate[MAX_CH];          /* per channel, bit/s */
  double credit[MAX_CH];        /* bytes */
  guint pending[MAX_CH];        /* packets left in this burst */
  guint ch;                     /* next channel of the burst */
  guint64 burst;                /* bursts so far */
  guint32 ts;
  guint16 seq;
  GstClockID wait;
  gboolean flushing;
};

G_DEFINE_TYPE (GstAvmrcSynth, gst_avmrc_synth, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (avmrcsynth, "avmrcsynth", GST_RANK_NONE,
    GST_TYPE_AVMRC_SYNTH, GST_DEBUG_CATEGORY_INIT (avmrcsynth_debug, "avmrcsynth", 0,
        "AVMRC synthetic layered workload"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (CAPS));

static gboolean
start (GstBaseSrc * bsrc)
{
  GstAvmrcSynth *self = GST_AVMRC_SYNTH (bsrc);
  double cum[MAX_CH];
  guint i;

  g_mutex_lock (&self->lock);
  if (amcc_avmrc_layer_rates (cum, self->channels, self->b1, self->factor) != AMCC_OK
      || self->packet < 12 + DESC_LEN + 1) {
    g_mutex_unlock (&self->lock);
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL), ("need factor > 1, b1 > 0 and "
            "packet-size >= 16"));
    return FALSE;
  }
  for (i = 0; i < self->channels; i++) {
    self->rate[i] = cum[i] - (i ? cum[i - 1] : 0);
    self->credit[i] = 0;
    self->pending[i] = 0;
  }
  g_mutex_unlock (&self->lock);
  self->ch = self->channels;
  self->burst = 0;
  self->ts = g_random_int ();
  self->seq = (guint16) g_random_int ();
  self->flushing = FALSE;
  return TRUE;
}

static gboolean
unlock (GstBaseSrc * bsrc)
{
  GstAvmrcSynth *self = GST_AVMRC_SYNTH (bsrc);

  GST_OBJECT_LOCK (self);
  self->flushing = TRUE;
  if (self->wait)
    gst_clock_id_unschedule (self->wait);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
unlock_stop (GstBaseSrc * bsrc)
{
  GstAvmrcSynth *self = GST_AVMRC_SYNTH (bsrc);

  GST_OBJECT_LOCK (self);
  self->flushing = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* Waits for burst b (running time b x period) and fills its packet counts. FALSE: flushing. */
static gboolean
next_burst (GstAvmrcSynth * self)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  GstClockTime period = (GstClockTime) self->period_ms * GST_MSECOND, at;
  GstClockReturn r = GST_CLOCK_OK;
  guint i, size = self->packet;

  at = gst_element_get_base_time (GST_ELEMENT (self)) + self->burst * period;
  if (clock) {
    GST_OBJECT_LOCK (self);
    if (self->flushing) {
      GST_OBJECT_UNLOCK (self);
      gst_object_unref (clock);
      return FALSE;
    }
    self->wait = gst_clock_new_single_shot_id (clock, at);
    GST_OBJECT_UNLOCK (self);
    r = gst_clock_id_wait (self->wait, NULL);
    GST_OBJECT_LOCK (self);
    gst_clock_id_unref (self->wait);
    self->wait = NULL;
    GST_OBJECT_UNLOCK (self);
    gst_object_unref (clock);
    if (r == GST_CLOCK_UNSCHEDULED)
      return FALSE;
  }
  for (i = 0; i < self->channels; i++) {
    self->credit[i] += self->rate[i] * self->period_ms / 1e3 / 8;
    self->pending[i] = (guint) (self->credit[i] / size);
    self->credit[i] -= (double) self->pending[i] * size;
  }
  self->ch = 0;
  self->burst++;
  return TRUE;
}

static GstFlowReturn
create (GstPushSrc * psrc, GstBuffer ** out)
{
  GstAvmrcSynth *self = GST_AVMRC_SYNTH (psrc);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstBuffer *b;
  guint8 *p;
  guint payload = self->packet - 12;

  for (;;) {
    while (self->ch < self->channels && self->pending[self->ch] == 0)
      self->ch++;
    if (self->ch < self->channels)
      break;
    if (!next_burst (self))
      return GST_FLOW_FLUSHING;
  }
  self->pending[self->ch]--;
  b = gst_rtp_buffer_new_allocate (payload, 0, 0);
  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, self->seq++);
  gst_rtp_buffer_set_timestamp (&rtp, self->ts++);     /* each packet a frame of its own */
  gst_rtp_buffer_set_marker (&rtp, TRUE);
  p = gst_rtp_buffer_get_payload (&rtp);
  memset (p, 0, payload);
  p[0] = 0x90;                  /* X, S, partition 0 */
  p[1] = 0x20;                  /* T */
  p[2] = (guint8) (self->ch << 6);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (b) = (self->burst - 1) * self->period_ms * GST_MSECOND;
  *out = b;
  return GST_FLOW_OK;
}

static void
set_property (GObject * object, guint id, const GValue * value, GParamSpec * pspec)
{
  GstAvmrcSynth *self = GST_AVMRC_SYNTH (object);

  g_mutex_lock (&self->lock);
  switch (id) {
    case PROP_CHANNELS: self->channels = g_value_get_uint (value); break;
    case PROP_B1: self->b1 = g_value_get_uint (value); break;
    case PROP_FACTOR: self->factor = g_value_get_double (value); break;
    case PROP_PERIOD: self->period_ms = g_value_get_uint (value); break;
    case PROP_PACKET: self->packet = g_value_get_uint (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
  }
  g_mutex_unlock (&self->lock);
}

static void
get_property (GObject * object, guint id, GValue * value, GParamSpec * pspec)
{
  GstAvmrcSynth *self = GST_AVMRC_SYNTH (object);

  g_mutex_lock (&self->lock);
  switch (id) {
    case PROP_CHANNELS: g_value_set_uint (value, self->channels); break;
    case PROP_B1: g_value_set_uint (value, self->b1); break;
    case PROP_FACTOR: g_value_set_double (value, self->factor); break;
    case PROP_PERIOD: g_value_set_uint (value, self->period_ms); break;
    case PROP_PACKET: g_value_set_uint (value, self->packet); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec); break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_avmrc_synth_init (GstAvmrcSynth * self)
{
  g_mutex_init (&self->lock);
  self->channels = MAX_CH;
  self->b1 = (guint) AMCC_AVMRC_PAPER_B1_BPS;
  self->factor = AMCC_AVMRC_PAPER_FACTOR;
  self->period_ms = DEFAULT_PERIOD_MS;
  self->packet = DEFAULT_PACKET;
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}

static void
finalize (GObject * object)
{
  g_mutex_clear (&GST_AVMRC_SYNTH (object)->lock);
  G_OBJECT_CLASS (gst_avmrc_synth_parent_class)->finalize (object);
}

static void
gst_avmrc_synth_class_init (GstAvmrcSynthClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bc = GST_BASE_SRC_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

  oc->set_property = set_property;
  oc->get_property = get_property;
  oc->finalize = finalize;
  bc->start = start;
  bc->unlock = unlock;
  bc->unlock_stop = unlock_stop;
  GST_PUSH_SRC_CLASS (klass)->create = create;

  props[PROP_CHANNELS] = g_param_spec_uint ("channels", "Channels",
      "Channels C, at most 4: the channel is the VP8 descriptor's 2-bit TID (the paper: 9)", 1,
      MAX_CH, MAX_CH, rw);
  props[PROP_B1] = g_param_spec_uint ("b1", "B_1",
      "Rate of channel 1 = B_1 (bit/s; the paper: 256000)", 1, G_MAXUINT,
      (guint) AMCC_AVMRC_PAPER_B1_BPS, rw);
  props[PROP_FACTOR] = g_param_spec_double ("factor", "Factor",
      "B_i = factor x B_(i-1): the cumulative rate of channels 1..i (the paper: 1.5)", 1.0001,
      100.0, AMCC_AVMRC_PAPER_FACTOR, rw);
  props[PROP_PERIOD] = g_param_spec_uint ("period", "Scheduling period",
      "One burst per channel per period (ms; the paper: 100, also 25 and 50)", 1, 10000,
      DEFAULT_PERIOD_MS, rw);
  props[PROP_PACKET] = g_param_spec_uint ("packet-size", "Packet size",
      "RTP packet size before the stamp (bytes; the paper: at most 1 KB)", 16, 65000,
      DEFAULT_PACKET, rw);
  g_object_class_install_properties (oc, N_PROPS, props);

  gst_element_class_add_static_pad_template (ec, &src_template);
  gst_element_class_set_static_metadata (ec, "AVMRC synthetic layers", "Source/Network/RTP",
      "The paper's synthetic layered workload: C constant-rate channels in bursts every "
      "scheduling period, as RTP packets avmrclayers routes by channel",
      "gst-amcast <gst-amcast@localhost>");
}
