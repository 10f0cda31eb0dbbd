/* gstampacer.c - sender pacing (see gstampacer.h). The chain functions only queue (with the
 * arrival time on the element's clock); the src pad's task takes one item at a time, waits on
 * the clock until its slot and pushes it. A packet whose slot is at most the burst away
 * leaves without a wait: each wakeup costs far more CPU than a send (about 130 us in the
 * bench's VM), and a slot at 2 Mbit/s x 1.5 holds about three packets. The real system clock is
 * waited on with g_cond_wait_until on the pacer's own cond (no clock entry per packet);
 * another clock (a GstTestClock in tests) with a GstClockID. Events keep their place in the queue; flush-start and
 * pad deactivation unschedule the wait, so the task never holds up a flush or a state change. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstampacer.h"

#include <amcc/pacing.h>

GST_DEBUG_CATEGORY_STATIC (am_pacer_debug);
#define GST_CAT_DEFAULT am_pacer_debug

/* backpressure only for a stalled downstream: max-delay keeps the queue far shorter */
#define MAX_QUEUED 2000

typedef struct {
  GstMiniObject *obj;           /* GstBuffer or serialized GstEvent */
  GstClockTime arrival;
} Item;

struct _GstAmPacer {
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  GMutex lock;                  /* everything below */
  GCond cond;                   /* queue changed (if idle), flushing, pacing off */
  gboolean idle;                /* the task waits for an item: only then a chain wakes it */
  GQueue items;
  guint queued_buffers;
  gboolean flushing;
  GstFlowReturn srcresult;      /* last downstream result, returned upstream */
  GstClockID wait_id;
  GstClockTime next;            /* earliest time the next packet may leave */
  gboolean enabled;
  gdouble factor;
  GstClockTime max_delay;
  GstClockTime burst;           /* a slot this close leaves at once */
  guint rate_bps;
  GstAmPacerStats stats;
};

G_DEFINE_TYPE_WITH_CODE (GstAmPacer, gst_am_pacer, GST_TYPE_ELEMENT,
    GST_DEBUG_CATEGORY_INIT (am_pacer_debug, "ampacer", 0, "asmpsink pacer"));

static GstStaticPadTemplate sink_t = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK,
    GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_t = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC,
    GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* The system clock, as rtpsession's RTCP timer and gst_am_timer_start: pacing is about wall
 * time on the wire, and a test that installs a GstTestClock as the system clock drives all. */
static GstClock *
pacer_clock (GstAmPacer * p)
{
  return gst_system_clock_obtain ();
}

static void
item_free (Item * it)
{
  gst_mini_object_unref (it->obj);
  g_free (it);
}

static void
drain_locked (GstAmPacer * p)
{
  Item *it;

  while ((it = g_queue_pop_head (&p->items)))
    item_free (it);
  p->queued_buffers = 0;
  p->next = 0;
}

static void
set_flushing_locked (GstAmPacer * p)
{
  p->flushing = TRUE;
  p->srcresult = GST_FLOW_FLUSHING;
  if (p->wait_id)
    gst_clock_id_unschedule (p->wait_id);
  g_cond_broadcast (&p->cond);
}

/* Waits, lock held, until `clock` reads `t` (now: its reading), flushing or pacing off. */
static void
wait_until_locked (GstAmPacer * p, GstClock * clock, GstClockTime t, GstClockTime now)
{
  if (G_OBJECT_TYPE (clock) == GST_TYPE_SYSTEM_CLOCK) {
    while (!p->flushing && p->enabled && now < t) {
      g_cond_wait_until (&p->cond, &p->lock, g_get_monotonic_time () + (t - now + 999) / 1000);
      now = gst_clock_get_time (clock);
    }
    return;
  }
  p->wait_id = gst_clock_new_single_shot_id (clock, t);
  g_mutex_unlock (&p->lock);
  gst_clock_id_wait (p->wait_id, NULL);
  g_mutex_lock (&p->lock);
  gst_clock_id_unref (p->wait_id);
  p->wait_id = NULL;
}

/* When a packet that arrived at `arrival` may leave: at the schedule's next slot, but never
 * more than max_delay after it arrived (pacing adds bounded latency). */
static GstClockTime
send_time (GstClockTime next, GstClockTime arrival, GstClockTime max_delay)
{
  if (GST_CLOCK_TIME_IS_VALID (max_delay) && next > arrival + max_delay)
    return arrival + max_delay;
  return next;
}

static GstFlowReturn
enqueue (GstAmPacer * p, GstMiniObject * obj)
{
  gboolean is_buf = GST_IS_BUFFER (obj);
  GstClock *clock = pacer_clock (p);
  Item *it = g_new (Item, 1);
  GstFlowReturn ret;

  it->obj = obj;
  it->arrival = gst_clock_get_time (clock);
  gst_object_unref (clock);
  g_mutex_lock (&p->lock);
  while (is_buf && !p->flushing && p->srcresult == GST_FLOW_OK
      && p->queued_buffers >= MAX_QUEUED)
    g_cond_wait (&p->cond, &p->lock);
  ret = p->flushing ? GST_FLOW_FLUSHING : p->srcresult;
  if (ret != GST_FLOW_OK) {
    g_mutex_unlock (&p->lock);
    item_free (it);
    return ret;
  }
  g_queue_push_tail (&p->items, it);
  if (is_buf)
    p->queued_buffers++;
  if (p->idle)                  /* a task waiting for its slot is not woken per arrival */
    g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  return GST_FLOW_OK;
}

static GstFlowReturn
pacer_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  return enqueue (GST_AM_PACER (parent), GST_MINI_OBJECT_CAST (buf));
}

/* a key frame comes as one list from the payloader: its packets are paced one by one */
static GstFlowReturn
pacer_chain_list (GstPad * pad, GstObject * parent, GstBufferList * list)
{
  GstFlowReturn ret = GST_FLOW_OK;
  guint i, n = gst_buffer_list_length (list);

  for (i = 0; i < n && ret == GST_FLOW_OK; i++)
    ret = enqueue (GST_AM_PACER (parent),
        GST_MINI_OBJECT_CAST (gst_buffer_ref (gst_buffer_list_get (list, i))));
  gst_buffer_list_unref (list);
  return ret;
}

static void pacer_loop (gpointer data);

static gboolean
pacer_sink_event (GstPad * pad, GstObject * parent, GstEvent * ev)
{
  GstAmPacer *p = GST_AM_PACER (parent);

  switch (GST_EVENT_TYPE (ev)) {
    case GST_EVENT_FLUSH_START:
      g_mutex_lock (&p->lock);
      set_flushing_locked (p);
      g_mutex_unlock (&p->lock);
      gst_pad_push_event (p->srcpad, ev);
      gst_pad_pause_task (p->srcpad);   /* returns once the loop has left its wait */
      return TRUE;
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock (&p->lock);
      drain_locked (p);
      p->flushing = FALSE;
      p->srcresult = GST_FLOW_OK;
      g_mutex_unlock (&p->lock);
      gst_pad_push_event (p->srcpad, ev);
      return !gst_pad_is_active (p->srcpad)
          || gst_pad_start_task (p->srcpad, pacer_loop, p, NULL);
    default:
      if (GST_EVENT_IS_SERIALIZED (ev))
        return enqueue (p, GST_MINI_OBJECT_CAST (ev)) == GST_FLOW_OK;
      return gst_pad_push_event (p->srcpad, ev);
  }
}

/* Takes the head item, waits for its slot (buffers, pacing on), and pushes it. */
static void
pacer_loop (gpointer data)
{
  GstAmPacer *p = data;
  GstFlowReturn ret = GST_FLOW_OK;
  Item *it;
  GstMiniObject *obj;

  g_mutex_lock (&p->lock);
  while (!p->flushing && g_queue_is_empty (&p->items)) {
    p->idle = TRUE;
    g_cond_wait (&p->cond, &p->lock);
  }
  p->idle = FALSE;
  if (p->flushing)
    goto pause;
  it = g_queue_pop_head (&p->items);
  if (GST_IS_BUFFER (it->obj)) {
    GstClock *clock = pacer_clock (p);
    GstClockTime now = gst_clock_get_time (clock), t = now;

    if (p->queued_buffers-- >= MAX_QUEUED)
      g_cond_broadcast (&p->cond);      /* room for a chain waiting on MAX_QUEUED */
    if (p->enabled && p->rate_bps > 0) {
      t = send_time (p->next, it->arrival, p->max_delay);
      if (t < p->next)
        p->stats.forced++;
      if (t > now + p->burst) {
        p->stats.paced++;
        wait_until_locked (p, clock, t, now);
        now = gst_clock_get_time (clock);
      }
      /* a packet sent early within the slot keeps its slot: the mean rate is unchanged */
      t = MAX (t, now);
      p->next = t + amcc_pacing_interval (gst_buffer_get_size (GST_BUFFER (it->obj)),
          p->rate_bps, p->factor);
    }
    gst_object_unref (clock);
    if (t > it->arrival)
      p->stats.delay_max = MAX (p->stats.delay_max, t - it->arrival);
    if (p->flushing) {
      item_free (it);
      goto pause;
    }
  }
  obj = it->obj;
  g_free (it);
  g_mutex_unlock (&p->lock);

  if (GST_IS_BUFFER (obj)) {
    ret = gst_pad_push (p->srcpad, GST_BUFFER_CAST (obj));
  } else {
    gboolean eos = GST_EVENT_TYPE (obj) == GST_EVENT_EOS;
    gst_pad_push_event (p->srcpad, GST_EVENT_CAST (obj));
    if (eos)
      ret = GST_FLOW_EOS;
  }
  if (ret == GST_FLOW_OK)
    return;
  g_mutex_lock (&p->lock);
  if (!p->flushing)
    p->srcresult = ret;         /* later buffers get it back upstream */
  if (ret != GST_FLOW_EOS && ret != GST_FLOW_FLUSHING)
    GST_WARNING_OBJECT (p, "downstream: %s", gst_flow_get_name (ret));
  g_cond_broadcast (&p->cond);
pause:
  g_mutex_unlock (&p->lock);
  gst_pad_pause_task (p->srcpad);
}

static gboolean
pacer_src_activate_mode (GstPad * pad, GstObject * parent, GstPadMode mode, gboolean active)
{
  GstAmPacer *p = GST_AM_PACER (parent);
  gboolean ok;

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  if (active) {
    g_mutex_lock (&p->lock);
    p->flushing = FALSE;
    p->srcresult = GST_FLOW_OK;
    g_mutex_unlock (&p->lock);
    return gst_pad_start_task (pad, pacer_loop, p, NULL);
  }
  g_mutex_lock (&p->lock);
  set_flushing_locked (p);
  g_mutex_unlock (&p->lock);
  ok = gst_pad_stop_task (pad);
  g_mutex_lock (&p->lock);
  drain_locked (p);
  g_mutex_unlock (&p->lock);
  return ok;
}

void
gst_am_pacer_set_rate (GstAmPacer * p, guint bps)
{
  g_mutex_lock (&p->lock);
  p->rate_bps = bps;
  g_mutex_unlock (&p->lock);
}

void
gst_am_pacer_configure (GstAmPacer * p, gboolean enabled, gdouble factor, guint max_delay_ms,
    guint burst_ms)
{
  g_mutex_lock (&p->lock);
  p->enabled = enabled;
  p->factor = factor;
  p->max_delay = max_delay_ms * GST_MSECOND;
  p->burst = burst_ms * GST_MSECOND;
  if (p->wait_id && !enabled)
    gst_clock_id_unschedule (p->wait_id);       /* the waiting packet leaves at once */
  if (!enabled)
    g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
}

void
gst_am_pacer_take_stats (GstAmPacer * p, GstAmPacerStats * st)
{
  g_mutex_lock (&p->lock);
  *st = p->stats;
  st->queued = p->queued_buffers;
  p->stats.delay_max = 0;
  g_mutex_unlock (&p->lock);
}

void
gst_am_pacer_add_stats (GstAmPacer * p, GstStructure * stats)
{
  GstAmPacerStats ps;

  gst_am_pacer_take_stats (p, &ps);
  gst_structure_set (stats, "pacing-queued", G_TYPE_UINT, ps.queued, "pacing-delay-max-s",
      G_TYPE_DOUBLE, (gdouble) ps.delay_max / GST_SECOND, "pacing-paced", G_TYPE_UINT64,
      ps.paced, "pacing-forced", G_TYPE_UINT64, ps.forced, NULL);
}

GstElement *
gst_am_pacer_new (const gchar * name)
{
  return g_object_new (GST_TYPE_AM_PACER, "name", name, NULL);
}

static void
gst_am_pacer_init (GstAmPacer * p)
{
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  g_queue_init (&p->items);
  p->flushing = TRUE;
  p->srcresult = GST_FLOW_FLUSHING;
  p->enabled = TRUE;
  p->factor = 1.0;
  p->max_delay = GST_CLOCK_TIME_NONE;
  p->burst = GST_AM_PACER_SLOT;
  p->sinkpad = gst_pad_new_from_static_template (&sink_t, "sink");
  gst_pad_set_chain_function (p->sinkpad, pacer_chain);
  gst_pad_set_chain_list_function (p->sinkpad, pacer_chain_list);
  gst_pad_set_event_function (p->sinkpad, pacer_sink_event);
  GST_PAD_SET_PROXY_CAPS (p->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (p->sinkpad);
  gst_element_add_pad (GST_ELEMENT (p), p->sinkpad);
  p->srcpad = gst_pad_new_from_static_template (&src_t, "src");
  gst_pad_set_activatemode_function (p->srcpad, pacer_src_activate_mode);
  GST_PAD_SET_PROXY_CAPS (p->srcpad);
  gst_element_add_pad (GST_ELEMENT (p), p->srcpad);
}

static void
gst_am_pacer_finalize (GObject * object)
{
  GstAmPacer *p = GST_AM_PACER (object);

  drain_locked (p);
  g_cond_clear (&p->cond);
  g_mutex_clear (&p->lock);
  G_OBJECT_CLASS (gst_am_pacer_parent_class)->finalize (object);
}

static void
gst_am_pacer_class_init (GstAmPacerClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_am_pacer_finalize;
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass), &sink_t);
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass), &src_t);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "asmpsink pacer",
      "Generic", "Spaces packets to a rate (inside asmpsink)", "gst-amcast");
}
