/* gsth264wrapfill.c - h264wrapfill: hands each access unit to lib/cc's h264fill and, when it
 * asks for one, pushes its synthetic access unit first. The decoder outputs a picture for it
 * (avdec_h264 ignores GST_BUFFER_FLAG_DECODE_ONLY on its input), a copy of the last reference
 * picture, which is what a receiver shows for a lost frame anyway: it carries the timestamp of
 * the last lost frame, one frame interval before the next picture (half way between the
 * pictures around the loss while no interval is known). The frame interval is the median of
 * the last 9 steps (3 at least) between consecutive pictures: timestamps through a jitter buffer
 * wander a little, and a loss makes a step of several intervals. The same interval counts the
 * frames missing before a picture, which tells lib/cc a frame_num wrap from a lost IDR frame.
 * Byte stream, one access unit per buffer (rtph264depay's output with these caps downstream). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gsth264wrapfill.h"

#include <amcc/h264fill.h>

GST_DEBUG_CATEGORY_STATIC (h264wrapfill_debug);
#define GST_CAT_DEFAULT h264wrapfill_debug

struct _GstH264WrapFill
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;
  GMutex lock;                  /* guards fill (the counter is read from other threads) */
  amcc_h264fill fill;
  GstClockTime last_pts, step;  /* the last picture's PTS; the frame interval (median step) */
  GstClockTime steps[9];        /* the last steps between consecutive pictures, ring */
  guint nsteps;
};

enum
{
  PROP_0,
  PROP_FILLED,
};

G_DEFINE_TYPE (GstH264WrapFill, gst_h264_wrap_fill, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (h264wrapfill, "h264wrapfill", GST_RANK_NONE,
    GST_TYPE_H264_WRAP_FILL, GST_DEBUG_CATEGORY_INIT (h264wrapfill_debug, "h264wrapfill", 0,
        "H.264 frame_num wrap filler"));

#define CAPS "video/x-h264, stream-format = (string) byte-stream, alignment = (string) au"
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK,
    GST_PAD_ALWAYS, GST_STATIC_CAPS (CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC,
    GST_PAD_ALWAYS, GST_STATIC_CAPS (CAPS));

static GstFlowReturn
gst_h264_wrap_fill_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstH264WrapFill *self = GST_H264_WRAP_FILL (parent);
  guint8 au[AMCC_H264FILL_MAX_BYTES];
  GstMapInfo m;
  GstClockTime pts = GST_BUFFER_PTS (buf);
  long n = 0, missing = -1;

  /* frames lost since the last picture, from the timestamps (RTP's, through the depayloader) */
  if (GST_CLOCK_TIME_IS_VALID (pts) && GST_CLOCK_TIME_IS_VALID (self->last_pts)
      && GST_CLOCK_TIME_IS_VALID (self->step) && pts > self->last_pts)
    missing = (long) ((pts - self->last_pts + self->step / 2) / self->step) - 1;
  if (gst_buffer_map (buf, &m, GST_MAP_READ)) {
    g_mutex_lock (&self->lock);
    n = amcc_h264fill_au (&self->fill, m.data, m.size, missing, au, sizeof au);
    g_mutex_unlock (&self->lock);
    gst_buffer_unmap (buf, &m);
  }
  if (n > 0) {
    GstBuffer *s = gst_buffer_new_memdup (au, (gsize) n);
    GstFlowReturn r;

    GstClockTime t = GST_CLOCK_TIME_NONE;

    if (GST_CLOCK_TIME_IS_VALID (pts) && GST_CLOCK_TIME_IS_VALID (self->last_pts)
        && pts > self->last_pts) {
      t = self->last_pts + (pts - self->last_pts) / 2;
      if (GST_CLOCK_TIME_IS_VALID (self->step) && pts - self->last_pts > self->step)
        t = pts - self->step;
    }
    GST_BUFFER_PTS (s) = GST_BUFFER_DTS (s) = t;
    GST_BUFFER_FLAG_SET (s, GST_BUFFER_FLAG_DELTA_UNIT);
    GST_DEBUG_OBJECT (self, "frames lost across frame_num 0: a skip picture with frame_num 0 "
        "before %" GST_TIME_FORMAT, GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
    r = gst_pad_push (self->srcpad, s);
    if (r != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return r;
    }
  }
  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    if (GST_CLOCK_TIME_IS_VALID (self->last_pts) && pts > self->last_pts) {
      GstClockTime sorted[G_N_ELEMENTS (self->steps)];
      guint cnt, i, j;

      self->steps[self->nsteps++ % G_N_ELEMENTS (self->steps)] = pts - self->last_pts;
      cnt = MIN (self->nsteps, G_N_ELEMENTS (self->steps));
      for (i = 0; i < cnt; i++) {       /* insertion sort of at most 9 */
        GstClockTime v = self->steps[i];
        for (j = i; j > 0 && sorted[j - 1] > v; j--)
          sorted[j] = sorted[j - 1];
        sorted[j] = v;
      }
      self->step = cnt >= 3 ? sorted[cnt / 2] : GST_CLOCK_TIME_NONE;
    }
    self->last_pts = pts;
  }
  return gst_pad_push (self->srcpad, buf);
}

static gboolean
gst_h264_wrap_fill_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstH264WrapFill *self = GST_H264_WRAP_FILL (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
    case GST_EVENT_STREAM_START:
      g_mutex_lock (&self->lock);
      amcc_h264fill_reset (&self->fill);
      g_mutex_unlock (&self->lock);
      self->last_pts = self->step = GST_CLOCK_TIME_NONE;
      self->nsteps = 0;
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static void
gst_h264_wrap_fill_get_property (GObject * obj, guint id, GValue * v, GParamSpec * ps)
{
  GstH264WrapFill *self = GST_H264_WRAP_FILL (obj);

  switch (id) {
    case PROP_FILLED:
      g_mutex_lock (&self->lock);
      g_value_set_uint64 (v, self->fill.filled);
      g_mutex_unlock (&self->lock);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
  }
}

static void
gst_h264_wrap_fill_finalize (GObject * obj)
{
  g_mutex_clear (&GST_H264_WRAP_FILL (obj)->lock);
  G_OBJECT_CLASS (gst_h264_wrap_fill_parent_class)->finalize (obj);
}

static void
gst_h264_wrap_fill_class_init (GstH264WrapFillClass * klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);

  oc->get_property = gst_h264_wrap_fill_get_property;
  oc->finalize = gst_h264_wrap_fill_finalize;
  g_object_class_install_property (oc, PROP_FILLED, g_param_spec_uint64 ("filled", "Filled",
          "Synthetic frame_num-0 skip pictures pushed (one per loss that crossed frame_num 0)",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template (ec, &sink_template);
  gst_element_class_add_static_pad_template (ec, &src_template);
  gst_element_class_set_static_metadata (ec, "H.264 frame_num wrap filler",
      "Codec/Video/Filter",
      "Before a picture whose lost predecessors include frame_num 0, an all-skip P picture "
      "with frame_num 0 (the last picture again, in the last lost frame's slot): libavcodec "
      "then counts the wrap and does not drop the next frames of an intra-refresh stream as "
      "out of order",
      "gst-amcast <gst-amcast@localhost>");
}

static void
gst_h264_wrap_fill_init (GstH264WrapFill * self)
{
  g_mutex_init (&self->lock);
  amcc_h264fill_init (&self->fill);
  self->last_pts = self->step = GST_CLOCK_TIME_NONE;
  self->nsteps = 0;
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_h264_wrap_fill_chain);
  gst_pad_set_event_function (self->sinkpad, gst_h264_wrap_fill_sink_event);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
