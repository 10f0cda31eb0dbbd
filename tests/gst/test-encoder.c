/* test-encoder.c - asmpsink drives the upstream encoder once per GOP: a new target reaches the
 * encoder only when the encoder outputs its next key frame, in that encoder's units (x264enc
 * bitrate kbit/s, vp8enc target-bitrate bit/s, openh264enc bitrate bit/s); other encoders get
 * an 'asmpsink-bitrate' bus message. With x264 intra refresh the refresh period plays the GOP. Encoders that are not installed are skipped with a printed
 * reason. Network: RTP goes to 127.0.0.1 only. */
#include "amgsttest.h"

#define INITIAL_BPS 400000
#define LOWERED_BPS 200000
#define REQUEST_AT_INPUT 15     /* mid-GOP with key frames every 10 */

typedef struct {
  GMutex lock;
  GstElement *sink;
  guint frames_in, frames_out;
  gboolean cur_key;
  GArray *keyframes;            /* output indices of key frames */
  guint out_at_request;
  gboolean requested;
  /* encoder property changes: value, output index of the buffer passing, key or not */
  guint n_sets;
  guint64 set_value[8];
  gint set_frame[8];
  gboolean set_key[8];
  /* bus */
  guint errors, warnings, bitrate_msgs, last_bitrate_msg;
  GstStructure *stats_out;
} Rec;

static GstPadProbeReturn
enc_out_probe (GstPad * pad, GstPadProbeInfo * info, Rec * r)
{
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);

  g_mutex_lock (&r->lock);
  r->cur_key = !GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DELTA_UNIT);
  if (r->cur_key) {
    guint idx = r->frames_out;
    g_array_append_val (r->keyframes, idx);
  }
  r->frames_out++;
  g_mutex_unlock (&r->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
raw_in_probe (GstPad * pad, GstPadProbeInfo * info, Rec * r)
{
  gboolean request;

  g_mutex_lock (&r->lock);
  request = ++r->frames_in == REQUEST_AT_INPUT;
  if (request) {
    r->out_at_request = r->frames_out;
    r->requested = TRUE;
  }
  g_mutex_unlock (&r->lock);
  /* lowering the ceiling lowers the target at once; the encoder must wait for a key frame */
  if (request)
    g_object_set (r->sink, "max-bitrate", LOWERED_BPS, NULL);
  return GST_PAD_PROBE_OK;
}

static void
on_enc_notify (GObject * enc, GParamSpec * pspec, Rec * r)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, pspec->value_type);
  g_object_get_property (enc, pspec->name, &v);
  g_mutex_lock (&r->lock);
  if (r->n_sets < G_N_ELEMENTS (r->set_value)) {
    r->set_value[r->n_sets] = G_VALUE_HOLDS_INT (&v) ? (guint64) g_value_get_int (&v)
        : g_value_get_uint (&v);
    r->set_frame[r->n_sets] = r->frames_out ? (gint) r->frames_out - 1 : -1;
    r->set_key[r->n_sets] = r->frames_out ? r->cur_key : FALSE;
  }
  r->n_sets++;
  g_mutex_unlock (&r->lock);
  g_value_unset (&v);
}

static GstElement *
run_pipeline (const gchar * desc, Rec * r, const gchar * enc_prop, gboolean set_encoder,
    GstBus ** bus_out)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *enc, *src;
  GstPad *pad;
  GstBus *bus;
  GstMessage *m;

  fail_unless (pipe != NULL, "%s: %s", desc, err ? err->message : "?");
  g_mutex_init (&r->lock);
  r->keyframes = g_array_new (FALSE, FALSE, sizeof (guint));
  r->sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  enc = gst_bin_get_by_name (GST_BIN (pipe), "enc");
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  /* added before asmpsink attaches its own probe, so it sees each buffer first */
  pad = gst_element_get_static_pad (enc, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, (GstPadProbeCallback) enc_out_probe, r,
      NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, (GstPadProbeCallback) raw_in_probe, r,
      NULL);
  gst_object_unref (pad);
  if (set_encoder)
    g_object_set (r->sink, "encoder", enc, NULL);
  if (enc_prop) {
    gchar *sig = g_strdup_printf ("notify::%s", enc_prop);
    g_signal_connect (enc, sig, G_CALLBACK (on_enc_notify), r);
    g_free (sig);
  }
  gst_object_unref (enc);
  gst_object_unref (src);

  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  /* every message until EOS: errors, warnings and asmpsink-bitrate are counted */
  while ((m = gst_bus_timed_pop (bus, 60 * GST_SECOND))) {
    GstMessageType t = GST_MESSAGE_TYPE (m);
    const GstStructure *st = gst_message_get_structure (m);
    if (t == GST_MESSAGE_ERROR || t == GST_MESSAGE_WARNING) {
      GError *e = NULL;
      if (t == GST_MESSAGE_ERROR)
        gst_message_parse_error (m, &e, NULL);
      else
        gst_message_parse_warning (m, &e, NULL);
      g_printerr ("%s: %s\n", GST_MESSAGE_TYPE_NAME (m), e->message);
      g_clear_error (&e);
      *(t == GST_MESSAGE_ERROR ? &r->errors : &r->warnings) += 1;
    } else if (t == GST_MESSAGE_ELEMENT && gst_structure_has_name (st, "asmpsink-bitrate")) {
      r->bitrate_msgs++;
      gst_structure_get_uint (st, "bitrate", &r->last_bitrate_msg);
    }
    gst_message_unref (m);
    if (t == GST_MESSAGE_EOS || t == GST_MESSAGE_ERROR)
      break;
  }
  fail_unless (m != NULL, "pipeline did not finish");
  fail_unless_equals_int (r->errors, 0);
  gst_element_set_state (pipe, GST_STATE_NULL);
  *bus_out = bus;
  return pipe;
}

static gboolean
have (const gchar * factory)
{
  GstElementFactory *f = gst_element_factory_find (factory);

  if (!f) {
    /* the same registry lookup gst-inspect-1.0 does */
    g_print ("SKIP: %s is not installed (gst-inspect-1.0 %s fails)\n", factory, factory);
    return FALSE;
  }
  gst_object_unref (f);
  return TRUE;
}

/* Runs 60 frames with key frames every 10 through ENC, lowers the target at input frame 15
 * and checks the encoder saw: the initial target before any frame, then the lowered target
 * exactly at the first key frame output after the request, in bps / unit_div units. The
 * encoder is found upstream past a tee, queues and a parser (as in the demo's sender), or
 * given through the encoder property (set_encoder). */
static void
check_encoder (const gchar * factory, const gchar * enc_desc, const gchar * prop,
    guint unit_div, const gchar * pay, const gchar * parse, gboolean set_encoder)
{
  Rec r = { 0 };
  GstElement *pipe;
  GstBus *bus;
  gchar *desc;
  gint port = amt_free_port_pair ();
  guint i, expect_frame = G_MAXUINT, target = 0;

  if (!have (factory) || !have (pay))
    return;
  desc = g_strdup_printf ("videotestsrc name=src num-buffers=60 pattern=ball ! "
      "video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! %s name=enc ! tee name=e "
      "e. ! queue ! fakesink sync=false e. ! queue ! %s ! %s ! asmpsink name=sink "
      "address=127.0.0.1 port=%d initial-bitrate=%u min-bitrate=100000 max-bitrate=2000000 "
      "rtcp-interval=100 rate-match=false", enc_desc, parse, pay, port, INITIAL_BPS);
  pipe = run_pipeline (desc, &r, prop, set_encoder, &bus);

  fail_unless (r.requested);
  for (i = 0; i < r.keyframes->len; i++) {
    guint k = g_array_index (r.keyframes, guint, i);
    if (k >= r.out_at_request) {
      expect_frame = k;
      break;
    }
  }
  fail_unless (expect_frame != G_MAXUINT, "no key frame after the request");
  fail_unless (r.keyframes->len >= 3, "expected key frames every 10 of 60 frames");
  /* exactly two changes: the initial target (before any frame), the lowered one at a key frame */
  fail_unless_equals_int (r.n_sets, 2);
  fail_unless_equals_int (r.set_frame[0], -1);
  fail_unless_equals_int ((gint) r.set_value[0], INITIAL_BPS / unit_div);
  fail_unless_equals_int ((gint) r.set_value[1], LOWERED_BPS / unit_div);
  fail_unless (r.set_key[1], "bitrate changed at a non-key frame");
  fail_unless_equals_int (r.set_frame[1], (gint) expect_frame);
  g_object_get (r.sink, "target-bitrate", &target, NULL);
  fail_unless_equals_int (target, LOWERED_BPS);

  fail_unless_equals_int (r.warnings, 0);
  fail_unless_equals_int (r.bitrate_msgs, 0);  /* a driven encoder needs no app help */
  gst_object_unref (bus);
  gst_object_unref (r.sink);
  gst_object_unref (pipe);
  g_array_free (r.keyframes, TRUE);
  g_mutex_clear (&r.lock);
  g_free (desc);
}

GST_START_TEST (test_x264enc_kbps_at_key_frames)
{
  check_encoder ("x264enc", "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=10 "
      "bitrate=1000", "bitrate", 1000, "rtph264pay", "h264parse", FALSE);
}
GST_END_TEST;

GST_START_TEST (test_vp8enc_bps_at_key_frames)
{
  check_encoder ("vp8enc", "vp8enc deadline=1 keyframe-max-dist=10 target-bitrate=1000000",
      "target-bitrate", 1, "rtpvp8pay", "identity", FALSE);
}
GST_END_TEST;

GST_START_TEST (test_openh264enc_bps_at_key_frames)
{
  check_encoder ("openh264enc", "openh264enc gop-size=10 bitrate=1000000", "bitrate", 1,
      "rtph264pay", "h264parse", TRUE);
}
GST_END_TEST;

/* Runs `frames` frames of WxH at 25 fps through x264enc (ultrafast, zerolatency, `x264`
 * properties) into asmpsink (`sink` properties), recording as run_pipeline does. */
static GstElement *
run_x264 (Rec * r, gint frames, gint w, gint h, const gchar * x264, const gchar * sink,
    GstBus ** bus)
{
  gchar *desc = g_strdup_printf ("videotestsrc name=src num-buffers=%d pattern=ball ! "
      "video/x-raw,format=I420,width=%d,height=%d,framerate=25/1 ! x264enc name=enc "
      "tune=zerolatency speed-preset=ultrafast bitrate=1000 %s ! h264parse ! rtph264pay ! "
      "asmpsink name=sink address=127.0.0.1 port=%d initial-bitrate=%u min-bitrate=100000 "
      "max-bitrate=2000000 rtcp-interval=100 %s", frames, w, h, x264, amt_free_port_pair (),
      INITIAL_BPS, sink);
  GstElement *pipe = run_pipeline (desc, r, "bitrate", FALSE, bus);
  g_free (desc);
  return pipe;
}

static void
rec_free (Rec * r, GstElement * pipe, GstBus * bus)
{
  gst_object_unref (bus);
  gst_object_unref (r->sink);
  gst_object_unref (pipe);
  g_array_free (r->keyframes, TRUE);
  g_mutex_clear (&r->lock);
}

/* x264 intra refresh: no IDR after the first frame, but x264enc flags the frame that starts
 * each refresh period as a key frame, so the target still changes once per period. */
GST_START_TEST (test_x264enc_intra_refresh_per_period)
{
  Rec r = { 0 };
  GstElement *pipe;
  GstBus *bus;

  if (!have ("x264enc") || !have ("rtph264pay"))
    return;
  pipe = run_x264 (&r, 60, 160, 120, "key-int-max=10 intra-refresh=true", "rate-match=false",
      &bus);
  fail_unless (r.requested);
  fail_unless (r.keyframes->len >= 5, "x264enc flagged %u refresh periods in 60 frames",
      r.keyframes->len);
  fail_unless_equals_int (r.n_sets, 2);
  fail_unless_equals_int ((gint) r.set_value[1], LOWERED_BPS / 1000);
  fail_unless (r.set_key[1], "bitrate changed inside a refresh period");
  fail_unless (r.set_frame[1] >= (gint) r.out_at_request
      && r.set_frame[1] <= (gint) r.out_at_request + 10,
      "applied at frame %d, requested at %u", r.set_frame[1], r.out_at_request);
  fail_unless_equals_int (r.warnings, 0);
  rec_free (&r, pipe, bus);
}
GST_END_TEST;

/* rate-match=true: the encoder is told target x a gain within 0.75-1.33, still only
 * at key frames; x264 with a 40 ms VBV stays under its setting, so the gain rises above 1. */
GST_START_TEST (test_rate_match_at_key_frames)
{
  Rec r = { 0 };
  GstElement *pipe;
  GstBus *bus;
  guint i, setting = 0;

  if (!have ("x264enc") || !have ("rtph264pay"))
    return;
  pipe = run_x264 (&r, 150, 320, 240, "key-int-max=25 vbv-buf-capacity=40", "rate-match=true",
      &bus);
  fail_unless (r.n_sets >= 2 && r.n_sets <= G_N_ELEMENTS (r.set_value));
  fail_unless_equals_int (r.set_frame[0], -1);
  for (i = 1; i < r.n_sets; i++) {
    guint target = r.set_frame[i] >= (gint) r.out_at_request ? LOWERED_BPS : INITIAL_BPS;
    fail_unless (r.set_key[i], "setting %u changed at a non-key frame %d", i, r.set_frame[i]);
    fail_unless (r.set_value[i] * 1000 >= target * 0.75 - 1000
        && r.set_value[i] * 1000 <= target * 1.33 + 1000, "setting %u: %u kbit/s for %u",
        i, (guint) r.set_value[i], target);
  }
  g_object_get (r.sink, "stats", &r.stats_out, NULL);
  fail_unless (r.stats_out != NULL);
  fail_unless (gst_structure_get_uint (r.stats_out, "encoder-setting", &setting));
  fail_unless (setting > LOWERED_BPS, "the 40 ms VBV undershoots: the gain should be > 1");
  gst_structure_free (r.stats_out);
  rec_free (&r, pipe, bus);
}
GST_END_TEST;

/* An encoder asmpsink cannot drive: the target goes to the bus, the encoder is untouched. */
GST_START_TEST (test_other_encoder_gets_bus_message)
{
  Rec r = { 0 };
  GstElement *pipe;
  GstBus *bus;
  gchar *desc;
  gint quality = 0;
  GstElement *enc;

  if (!have ("jpegenc") || !have ("rtpjpegpay"))
    return;
  desc = g_strdup_printf ("videotestsrc name=src num-buffers=30 ! "
      "video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! jpegenc name=enc ! "
      "rtpjpegpay ! asmpsink name=sink address=127.0.0.1 port=%d initial-bitrate=%u "
      "min-bitrate=100000", amt_free_port_pair (), INITIAL_BPS);
  pipe = run_pipeline (desc, &r, NULL, FALSE, &bus);
  fail_unless_equals_int (r.bitrate_msgs, 1);
  fail_unless_equals_int (r.last_bitrate_msg, LOWERED_BPS);
  enc = gst_bin_get_by_name (GST_BIN (pipe), "enc");
  g_object_get (enc, "quality", &quality, NULL);
  fail_unless_equals_int (quality, 85);  /* jpegenc default: untouched */
  gst_object_unref (enc);
  gst_object_unref (bus);
  gst_object_unref (r.sink);
  gst_object_unref (pipe);
  g_array_free (r.keyframes, TRUE);
  g_free (desc);
}
GST_END_TEST;

static Suite *
encoder_suite (void)
{
  Suite *s = suite_create ("asmpsink-encoder");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_x264enc_kbps_at_key_frames);
  tcase_add_test (tc, test_vp8enc_bps_at_key_frames);
  tcase_add_test (tc, test_openh264enc_bps_at_key_frames);
  tcase_add_test (tc, test_x264enc_intra_refresh_per_period);
  tcase_add_test (tc, test_rate_match_at_key_frames);
  tcase_add_test (tc, test_other_encoder_gets_bus_message);
  return s;
}

GST_CHECK_MAIN (encoder);
