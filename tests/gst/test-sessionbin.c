/* test-sessionbin.c - the base bin of the RTP-session elements (gst/common/gstamsessionbin.h),
 * through a small subclass of its own (not the plugin's elements: the plugin carries its own
 * copy of the type). A sender (SEND + RTCP_IN) and a receiver (RECV) run on 127.0.0.1;
 * the receiver leaves and joins again while PLAYING; sessions added by start go at NULL;
 * start and stop run under the lock a subclass gives. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/rtp/gstrtpbuffer.h>
#include "amgsttest.h"
#include "common/gstamsessionbin.h"

/* ---- the test subclass: session 0 made in init, `extra` RECV sessions made by start ---- */
typedef struct {
  GstAmSessionBin parent;
  GstElement *feed;             /* SEND: identity behind the ghost sink pad */
  GstElement *out;              /* RECV: fakesink on rtpbin's recv_rtp_src pads */
  gboolean send;
  gint port;
  guint extra;
  gint extra_port[3];           /* each a free pair */
  gboolean fail;                /* start fails after adding its sessions */
  guint starts, stops;
  GMutex lock, *lockp;          /* given to the base bin in test_dynamic_sessions */
} TestBin;
typedef struct { GstAmSessionBinClass parent_class; } TestBinClass;
GType test_bin_get_type (void);
G_DEFINE_TYPE (TestBin, test_bin, GST_TYPE_AM_SESSION_BIN);

static void
on_pad_added (GstElement * rtpbin, GstPad * pad, TestBin * t)
{
  GstPad *sink;

  if (!g_str_has_prefix (GST_PAD_NAME (pad), "recv_rtp_src_0_"))
    return;
  sink = gst_element_get_static_pad (t->out, "sink");
  if (!gst_pad_is_linked (sink))
    gst_pad_link (pad, sink);
  gst_object_unref (sink);
}

/* another thread's try (a trylock of a mutex this thread holds is undefined in GLib) */
static gpointer
try_lock (gpointer lock)
{
  gboolean free_ = g_mutex_trylock (lock);

  if (free_)
    g_mutex_unlock (lock);
  return GINT_TO_POINTER (free_);
}

static gboolean
lock_is_free (GMutex * lock)
{
  return GPOINTER_TO_INT (g_thread_join (g_thread_new ("trylock", try_lock, lock)));
}

static gboolean
test_bin_start (GstAmSessionBin * bin)
{
  TestBin *t = (TestBin *) bin;
  guint i;

  t->starts++;
  if (t->lockp)                 /* held by the base bin around start */
    fail_if (lock_is_free (t->lockp));
  gst_am_session_bin_set_address (bin, gst_am_session_bin_session (bin, 0), "127.0.0.1",
      t->port, NULL);
  for (i = 0; i < t->extra; i++) {
    gchar *suffix = g_strdup_printf ("_x%u", i);
    GstAmSession *s = gst_am_session_bin_add (bin, GST_AM_SESSION_RECV, suffix, NULL);
    g_free (suffix);
    fail_unless (s != NULL);
    fail_unless_equals_int (s->id, i + 1);
    fail_unless (s->dynamic);
    gst_am_session_bin_set_address (bin, s, "127.0.0.1", t->extra_port[i], NULL);
  }
  return !t->fail;
}

static void
test_bin_stop (GstAmSessionBin * bin)
{
  TestBin *t = (TestBin *) bin;

  t->stops++;
  if (t->lockp)
    fail_if (lock_is_free (t->lockp));
}

static void
test_bin_init (TestBin * t)
{
  g_mutex_init (&t->lock);
}

static void
test_bin_class_init (TestBinClass * klass)
{
  klass->parent_class.start = test_bin_start;
  klass->parent_class.stop = test_bin_stop;
}

static TestBin *
test_bin_new (gboolean send, gint port)
{
  TestBin *t = g_object_new (test_bin_get_type (), NULL);
  GstAmSessionBin *bin = (GstAmSessionBin *) t;
  GstAmSession *s;

  t->send = send;
  t->port = port;
  if (send) {
    GstPad *target, *ghost;
    t->feed = gst_element_factory_make ("identity", "feed");
    gst_bin_add (GST_BIN (t), t->feed);
    target = gst_element_get_static_pad (t->feed, "sink");
    ghost = gst_ghost_pad_new ("sink", target);
    gst_element_add_pad (GST_ELEMENT (t), ghost);
    gst_object_unref (target);
    s = gst_am_session_bin_add (bin, GST_AM_SESSION_SEND | GST_AM_SESSION_RTCP_IN, "", t->feed);
  } else {
    t->out = gst_element_factory_make ("fakesink", "out");
    g_object_set (t->out, "sync", FALSE, "async", FALSE, NULL);
    gst_bin_add (GST_BIN (t), t->out);
    g_signal_connect (gst_am_session_bin_rtpbin (bin), "pad-added", G_CALLBACK (on_pad_added),
        t);
    s = gst_am_session_bin_add (bin, GST_AM_SESSION_RECV, "", NULL);
  }
  fail_unless (s != NULL);
  fail_unless (!s->dynamic);
  fail_unless_equals_int (s->id, 0);
  return t;
}

static GstBuffer *
rtp_packet (guint16 seq)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (100, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  fail_unless (gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_ssrc (&rtp, 0x1234);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, seq * 3000u);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (b) = GST_BUFFER_DTS (b) = GST_CLOCK_TIME_NONE;
  return b;
}

/* pushes packets until the counter has grown by n (bounded: 10 s) */
static gboolean
push_until (GstElement * appsrc, guint16 * seq, gint * counter, gint n)
{
  gint target = g_atomic_int_get (counter) + n, i;

  for (i = 0; i < 500; i++) {
    gst_app_src_push_buffer (GST_APP_SRC (appsrc), rtp_packet ((*seq)++));
    g_usleep (20000);
    if (g_atomic_int_get (counter) >= target)
      return TRUE;
  }
  return FALSE;
}

static guint
count_children (GstElement * bin, const gchar * prefix)
{
  GList *l;
  guint n = 0;

  GST_OBJECT_LOCK (bin);
  for (l = GST_BIN_CHILDREN (bin); l; l = l->next)
    n += g_str_has_prefix (GST_OBJECT_NAME (l->data), prefix);
  GST_OBJECT_UNLOCK (bin);
  return n;
}

GST_START_TEST (test_send_receive_leave_join)
{
  gint port = amt_free_port_pair (), got = 0, i;
  GstElement *pipe = gst_pipeline_new (NULL), *appsrc = gst_element_factory_make ("appsrc", NULL);
  TestBin *tx, *rx;
  GstAmSession *stx, *srx;
  GSocket *used = NULL, *lent = NULL;
  GstCaps *caps = gst_caps_from_string ("application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96");
  guint16 seq = 0;

  fail_unless (port > 0);
  tx = test_bin_new (TRUE, port);
  rx = test_bin_new (FALSE, port);
  g_object_set (appsrc, "caps", caps, "format", GST_FORMAT_TIME, "is-live", TRUE,
      "do-timestamp", TRUE, NULL);
  gst_bin_add_many (GST_BIN (pipe), appsrc, GST_ELEMENT (tx), GST_ELEMENT (rx), NULL);
  fail_unless (gst_element_link (appsrc, GST_ELEMENT (tx)));
  srx = gst_am_session_bin_session (GST_AM_SESSION_BIN (rx), 0);
  g_object_set (srx->rtp_src, "caps", caps, NULL);
  gst_caps_unref (caps);
  amt_count_child_pad (GST_ELEMENT (rx), "rtp_src", "src", &got);

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (tx->starts, 1);
  /* the RTCP udpsink sends from the RTCP udpsrc's socket */
  stx = gst_am_session_bin_session (GST_AM_SESSION_BIN (tx), 0);
  g_object_get (stx->rtcp_src, "used-socket", &used, NULL);
  g_object_get (stx->rtcp_sink, "socket", &lent, NULL);
  fail_unless (used != NULL && used == lent);
  g_clear_object (&used);
  g_clear_object (&lent);
  fail_unless (stx->rtp_src == NULL && srx->rtp_sink == NULL && srx->rtcp_src == NULL);

  fail_unless (push_until (appsrc, &seq, &got, 5), "no RTP reached the receiver");

  /* leave: the udpsrc stops and nothing arrives */
  gst_am_session_bin_set_joined (GST_AM_SESSION_BIN (rx), srx, FALSE);
  fail_unless (!srx->joined);
  fail_unless_equals_int (GST_STATE (srx->rtp_src), GST_STATE_NULL);
  g_atomic_int_set (&got, 0);
  for (i = 0; i < 10; i++) {
    gst_app_src_push_buffer (GST_APP_SRC (appsrc), rtp_packet (seq++));
    g_usleep (20000);
  }
  fail_unless_equals_int (g_atomic_int_get (&got), 0);
  fail_unless_equals_int (GST_STATE (pipe), GST_STATE_PLAYING);

  /* join again */
  gst_am_session_bin_set_joined (GST_AM_SESSION_BIN (rx), srx, TRUE);
  fail_unless (srx->joined);
  fail_unless (push_until (appsrc, &seq, &got, 5), "no RTP after joining again");

  /* left at the stop: a restart joins again */
  gst_am_session_bin_set_joined (GST_AM_SESSION_BIN (rx), srx, FALSE);
  fail_unless (gst_element_set_state (pipe, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (rx->stops, 1);
  fail_unless (srx->joined);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  fail_unless (push_until (appsrc, &seq, &got, 5), "no RTP after a restart");
  fail_unless (gst_element_set_state (pipe, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipe);
}
GST_END_TEST;

GST_START_TEST (test_dynamic_sessions)
{
  gint port = amt_free_port_pair ();
  TestBin *rx = test_bin_new (FALSE, port);
  GstAmSessionBin *bin = GST_AM_SESSION_BIN (rx);
  GstElement *rtpbin = gst_am_session_bin_rtpbin (bin);
  GstPad *pad;
  gint round;

  gst_object_ref_sink (rx);
  rx->extra = 3;
  for (round = 0; round < 3; round++)
    fail_unless ((rx->extra_port[round] = amt_free_port_pair ()) > 0);
  rx->lockp = &rx->lock;
  gst_am_session_bin_set_lock (bin, &rx->lockp);
  for (round = 0; round < 2; round++) {
    fail_unless (gst_element_set_state (GST_ELEMENT (rx), GST_STATE_READY)
        == GST_STATE_CHANGE_SUCCESS);
    fail_unless_equals_int (gst_am_session_bin_n_sessions (bin), 4);
    fail_unless_equals_int (count_children (GST_ELEMENT (rx), "rtp_src"), 4);
    pad = gst_element_get_static_pad (rtpbin, "recv_rtp_sink_3");
    fail_unless (pad != NULL);
    gst_object_unref (pad);
    fail_unless (gst_element_set_state (GST_ELEMENT (rx), GST_STATE_NULL)
        == GST_STATE_CHANGE_SUCCESS);
    /* the sessions start added are gone with their rtpbin pads; session 0 stays */
    fail_unless_equals_int (gst_am_session_bin_n_sessions (bin), 1);
    fail_unless_equals_int (count_children (GST_ELEMENT (rx), "rtp_src"), 1);
    fail_unless_equals_int (count_children (GST_ELEMENT (rx), "rtcp_sink"), 1);
    pad = gst_element_get_static_pad (rtpbin, "recv_rtp_sink_1");
    fail_unless (pad == NULL);
  }
  fail_unless_equals_int (rx->starts, 2);
  fail_unless_equals_int (rx->stops, 2);

  /* a failed start: stop is called and its sessions are removed */
  rx->fail = TRUE;
  fail_unless (gst_element_set_state (GST_ELEMENT (rx), GST_STATE_READY)
      == GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (rx->stops, 3);
  fail_unless_equals_int (gst_am_session_bin_n_sessions (bin), 1);
  fail_unless_equals_int (count_children (GST_ELEMENT (rx), "rtp_src"), 1);
  gst_element_set_state (GST_ELEMENT (rx), GST_STATE_NULL);
  fail_unless (lock_is_free (&rx->lock));       /* and released */
  gst_object_unref (rx);
}
GST_END_TEST;

/* a SEND session needs what feeds it; the table has room for GST_AM_SESSION_BIN_MAX; an
 * element that could not make its sessions fails to start */
GST_START_TEST (test_add_refused)
{
  TestBin *rx = test_bin_new (FALSE, amt_free_port_pair ());
  GstAmSessionBin *bin = GST_AM_SESSION_BIN (rx);
  guint i;

  gst_object_ref_sink (rx);
  fail_unless (gst_am_session_bin_add (bin, GST_AM_SESSION_SEND, "_s", NULL) == NULL);
  fail_unless_equals_int (gst_am_session_bin_n_sessions (bin), 1);
  for (i = 1; i < GST_AM_SESSION_BIN_MAX; i++) {
    gchar *suffix = g_strdup_printf ("_%u", i);
    fail_unless (gst_am_session_bin_add (bin, GST_AM_SESSION_RECV, suffix, NULL) != NULL);
    g_free (suffix);
  }
  fail_unless (gst_am_session_bin_add (bin, GST_AM_SESSION_RECV, "_over", NULL) == NULL);
  fail_unless_equals_int (gst_am_session_bin_n_sessions (bin), GST_AM_SESSION_BIN_MAX);
  fail_unless (gst_am_session_bin_session (bin, GST_AM_SESSION_BIN_MAX) == NULL);
  /* a session the element could not make before it started: it does not start */
  fail_unless (gst_element_set_state (GST_ELEMENT (rx), GST_STATE_READY)
      == GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (rx->starts, 0);
  gst_element_set_state (GST_ELEMENT (rx), GST_STATE_NULL);
  gst_object_unref (rx);
}
GST_END_TEST;

static Suite *
sessionbin_suite (void)
{
  Suite *s = suite_create ("sessionbin");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_send_receive_leave_join);
  tcase_add_test (tc, test_dynamic_sessions);
  tcase_add_test (tc, test_add_refused);
  return s;
}

GST_CHECK_MAIN (sessionbin);
