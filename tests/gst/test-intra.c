/* test-intra.c - periodic intra refresh instead of IDR frames (issue 15 item 1).
 *   - asmpsink intra-refresh=true reaches the upstream x264enc: one IDR (the first frame), then
 *     only refresh sweeps; off leaves x264enc's IDR frames; an encoder without intra refresh
 *     gets a bus warning and keeps running.
 *   - A receiver joining mid-stream (rtph264depay ! avdec_h264, as amcast-node's receivers)
 *     shows the same pictures as one that saw the whole stream within two refresh periods:
 *     the parameter sets come again at the next sweep's start (x264 repeats them there), the
 *     sweep then rebuilds the picture. With IDR frames it takes up to one key interval.
 *   - The decoder's known limit with intra refresh (a lost frame_num-0 frame, below).
 * Network: RTP goes to 127.0.0.1 only (asmpsink); the late-join tests run in-process. */
#include "amgsttest.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <string.h>

#define W 320                   /* 20 macroblocks: x264 sweeps 1 column per frame */
#define H 180
#define FRAMES 150
#define KEY_INT 25              /* key-int-max: the refresh period, frames */
#define JOIN 37                 /* mid-period: periods start at frames 0, 25, 50, ... */

static gboolean
have (const gchar * factory)
{
  GstElementFactory *f = gst_element_factory_find (factory);

  if (!f) {
    g_print ("SKIP: %s is not installed (gst-inspect-1.0 %s fails)\n", factory, factory);
    return FALSE;
  }
  gst_object_unref (f);
  return TRUE;
}

/* ---- in-process late join ---------------------------------------------------------------- */

/* Encodes FRAMES frames of a moving picture into RTP packets (x264 in one thread: the same
 * stream every run). Returns the packets (refs); *caps the RTP caps. */
static GPtrArray *
encode_rtp (gboolean intra_refresh, GstCaps ** caps)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball motion=wavy ! "
      "video/x-raw,format=I420,width=%d,height=%d,framerate=25/1 ! x264enc tune=zerolatency "
      "speed-preset=ultrafast threads=1 key-int-max=%d intra-refresh=%s ! "
      "video/x-h264,profile=baseline ! rtph264pay config-interval=-1 mtu=1200 ! "
      "appsink name=out sync=false", FRAMES, W, H, KEY_INT, intra_refresh ? "true" : "false");
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *out;
  GPtrArray *pkts = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  GstSample *s;

  fail_unless (pipe != NULL, "%s", desc);
  out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  *caps = NULL;
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  while ((s = gst_app_sink_pull_sample (GST_APP_SINK (out)))) {
    if (!*caps)
      *caps = gst_caps_ref (gst_sample_get_caps (s));
    g_ptr_array_add (pkts, gst_buffer_ref (gst_sample_get_buffer (s)));
    gst_sample_unref (s);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (out);
  gst_object_unref (pipe);
  g_free (desc);
  fail_unless (*caps != NULL && pkts->len >= FRAMES);
  return pkts;
}

/* Feeds the packets with PTS >= from_pts, except those with PTS in [drop_lo, drop_hi], to the
 * receivers' decode chain (rtph264depay ! [h264wrapfill name=fill if fill] ! avdec_h264 with
 * dec_opts); returns PTS -> luma plane (GBytes) of every picture it output, *filled the
 * filler's count, *shown the pictures it output (repeated timestamps included). */
static GHashTable *
decode_range (GPtrArray * pkts, GstCaps * caps, GstClockTime from_pts, GstClockTime drop_lo,
    GstClockTime drop_hi, const gchar * dec_opts, gboolean fill, guint64 * filled,
    guint * shown)
{
  gchar *desc = g_strdup_printf ("appsrc name=in format=time ! rtph264depay ! %s "
      "avdec_h264 max-threads=1 %s ! video/x-raw,format=I420 ! appsink name=out sync=false",
      fill ? "h264wrapfill name=fill !" : "", dec_opts);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *in, *out;
  GHashTable *pics = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      (GDestroyNotify) g_bytes_unref);
  GstSample *s;
  guint i;

  if (shown)
    *shown = 0;
  fail_unless (pipe != NULL);
  in = gst_bin_get_by_name (GST_BIN (pipe), "in");
  out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  g_object_set (in, "caps", caps, NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < pkts->len; i++) {
    GstBuffer *b = g_ptr_array_index (pkts, i);
    if (GST_BUFFER_PTS (b) >= from_pts && (GST_BUFFER_PTS (b) < drop_lo
            || GST_BUFFER_PTS (b) > drop_hi))
      gst_app_src_push_buffer (GST_APP_SRC (in), gst_buffer_ref (b));
  }
  gst_app_src_end_of_stream (GST_APP_SRC (in));
  while ((s = gst_app_sink_pull_sample (GST_APP_SINK (out)))) {
    GstBuffer *b = gst_sample_get_buffer (s);
    GstMapInfo m;
    gint64 *key = g_new (gint64, 1);

    fail_unless (gst_buffer_map (b, &m, GST_MAP_READ) && m.size >= W * H);
    *key = (gint64) GST_BUFFER_PTS (b);
    g_hash_table_replace (pics, key, g_bytes_new (m.data, W * H));
    if (shown)
      (*shown)++;
    gst_buffer_unmap (b, &m);
    gst_sample_unref (s);
  }
  if (filled) {
    GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), "fill");
    *filled = 0;
    if (f) {
      g_object_get (f, "filled", filled, NULL);
      gst_object_unref (f);
    }
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (in);
  gst_object_unref (out);
  gst_object_unref (pipe);
  g_free (desc);
  return pics;
}

static GHashTable *
decode_opts (GPtrArray * pkts, GstCaps * caps, GstClockTime from_pts, GstClockTime drop_pts,
    const gchar * dec_opts)
{
  return decode_range (pkts, caps, from_pts, drop_pts, drop_pts, dec_opts, FALSE, NULL, NULL);
}

static GHashTable *
decode_from (GPtrArray * pkts, GstCaps * caps, GstClockTime from_pts, GstClockTime drop_pts)
{
  return decode_opts (pkts, caps, from_pts, drop_pts, "");
}

static gint
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* Joins at frame JOIN; returns the first frame from which every picture of the late receiver
 * equals the whole-stream receiver's (-1: never), and *shown the late receiver's pictures
 * before that frame (shown, but not yet the stream's picture). */
static gint
late_join_recovery_opts (gboolean intra_refresh, const gchar * dec_opts, guint * shown)
{
  GstCaps *caps;
  GPtrArray *pkts = encode_rtp (intra_refresh, &caps);
  GHashTable *full = decode_from (pkts, caps, 0, GST_CLOCK_TIME_NONE), *late;
  GList *keys = g_hash_table_get_keys (full), *l;
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (guint64));
  gint i, recovered = -1;

  for (l = keys; l; l = l->next)
    g_array_append_val (pts, *(gint64 *) l->data);
  g_list_free (keys);
  g_array_sort (pts, cmp_u64);
  fail_unless_equals_int (pts->len, FRAMES);   /* the whole-stream receiver shows every frame */
  late = decode_opts (pkts, caps, g_array_index (pts, guint64, JOIN), GST_CLOCK_TIME_NONE,
      dec_opts);
  *shown = 0;
  for (i = pts->len - 1; i >= JOIN; i--) {
    gint64 t = (gint64) g_array_index (pts, guint64, i);
    GBytes *a = g_hash_table_lookup (full, &t), *b = g_hash_table_lookup (late, &t);
    if (!b || !g_bytes_equal (a, b))
      break;
    recovered = i;
  }
  for (i = JOIN; recovered >= 0 && i < recovered; i++) {
    gint64 t = (gint64) g_array_index (pts, guint64, i);
    *shown += g_hash_table_contains (late, &t);
  }
  g_print ("late join at frame %d, intra-refresh=%d %s: the stream's picture from frame %d "
      "(%d frames, %.2f s at 25 fps), %u pictures shown before\n", JOIN, intra_refresh,
      dec_opts, recovered, recovered - JOIN, (recovered - JOIN) / 25.0, *shown);
  g_hash_table_unref (full);
  g_hash_table_unref (late);
  g_array_free (pts, TRUE);
  g_ptr_array_unref (pkts);
  gst_caps_unref (caps);
  return recovered;
}

static gint
late_join_recovery (gboolean intra_refresh, guint * shown)
{
  return late_join_recovery_opts (intra_refresh, "", shown);
}

/* Intra refresh: the parameter sets come with the sweep starting at frame 50, which rebuilds
 * the picture column by column; from then on the late receiver shows exactly the stream's
 * pictures. Bound: the next sweep's start plus one sweep, 2 x KEY_INT frames. */
GST_START_TEST (test_late_joiner_intra_refresh)
{
  guint shown;
  gint r;

  if (!have ("x264enc") || !have ("avdec_h264"))
    return;
  r = late_join_recovery (TRUE, &shown);
  fail_unless (r >= 0, "the late receiver never showed the stream's picture");
  fail_unless (r <= JOIN + 2 * KEY_INT, "recovered at frame %d, bound %d", r,
      JOIN + 2 * KEY_INT);
  /* it joined without parameter sets: nothing whole before the next sweep starts */
  fail_unless (r > 2 * KEY_INT, "recovered at frame %d, before the sweep starting at %d", r,
      2 * KEY_INT);
}
GST_END_TEST;

/* avdec_h264 output-corrupt=false: the late receiver shows nothing until the sweep's recovery
 * point, and from then on the stream's pictures (no partial, grey pictures before). */
GST_START_TEST (test_late_joiner_intra_refresh_no_corrupt)
{
  guint shown, shown_default;
  gint r, r_default;

  if (!have ("x264enc") || !have ("avdec_h264"))
    return;
  r_default = late_join_recovery (TRUE, &shown_default);
  r = late_join_recovery_opts (TRUE, "output-corrupt=false", &shown);
  fail_unless_equals_int (r, r_default);
  fail_unless (shown_default > 0, "the default decoder showed no partial picture");
  fail_unless_equals_int (shown, 0);
}
GST_END_TEST;

/* The comparison: with IDR frames the late receiver shows the stream from the next IDR on. */
GST_START_TEST (test_late_joiner_idr)
{
  guint shown;
  gint r;

  if (!have ("x264enc") || !have ("avdec_h264"))
    return;
  r = late_join_recovery (FALSE, &shown);
  fail_unless_equals_int (r, 2 * KEY_INT);
}
GST_END_TEST;

/* A known limit, checked so that docs/demo.md stays true: x264 never resets frame_num in an
 * intra-refresh stream (no IDR), so it wraps every 32 frames here, and libavcodec's H.264
 * decoder, after a lost frame whose frame_num is 0, drops the next 30 frames as out of order:
 * it fills the frame_num gap but does not raise FrameNumOffset for the wrap inside it, so their
 * picture order counts (pic_order_cnt_type 2: 2 x (FrameNumOffset + frame_num)) fall one wrap
 * below the last picture it output. Any other lost frame costs only itself. The IDR stream
 * wraps too: x264 gives it log2_max_frame_num 4, so frame_num 0 comes again at frame 16 of each
 * 25-frame GOP (frame 91 here), and losing that one drops the 8 frames up to the next IDR.
 * If test_lost_frame_num_wrap fails, libavcodec changed: update docs/demo.md "Intra refresh".
 * h264wrapfill (lib/cc/h264fill.c) in front of the decoder removes the drops
 * (test_lost_frame_num_wrap_filled). */
typedef struct {
  guint missing;                /* frames not lost and not output */
  guint64 filled;               /* the filler's synthetic pictures */
  guint shown;                  /* pictures output */
  gboolean held;                /* the last lost frame's slot shows the picture before the loss */
  gint differ_after;            /* the last frame whose picture differs from the whole stream's */
} LossResult;

/* Loses frames [lost, lost + nlost) and decodes the rest, through h264wrapfill if fill. */
static LossResult
after_loss (gboolean intra_refresh, guint lost, guint nlost, gboolean fill)
{
  GstCaps *caps;
  GPtrArray *pkts = encode_rtp (intra_refresh, &caps);
  GHashTable *full = decode_from (pkts, caps, 0, GST_CLOCK_TIME_NONE), *got;
  GList *keys = g_hash_table_get_keys (full), *l;
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (guint64));
  LossResult res = { 0, 0, 0, FALSE, -1 };
  guint i;

  for (l = keys; l; l = l->next)
    g_array_append_val (pts, *(gint64 *) l->data);
  g_list_free (keys);
  g_array_sort (pts, cmp_u64);
  fail_unless_equals_int (pts->len, FRAMES);
  got = decode_range (pkts, caps, 0, g_array_index (pts, guint64, lost),
      g_array_index (pts, guint64, lost + nlost - 1), "", fill, &res.filled, &res.shown);
  {
    gint64 t0 = (gint64) g_array_index (pts, guint64, lost - 1);
    gint64 t1 = (gint64) g_array_index (pts, guint64, lost + nlost - 1);
    GBytes *a = g_hash_table_lookup (got, &t0), *b = g_hash_table_lookup (got, &t1);
    res.held = a && b && g_bytes_equal (a, b);
  }
  for (i = 0; i < pts->len; i++) {
    gint64 t = (gint64) g_array_index (pts, guint64, i);
    GBytes *a = g_hash_table_lookup (full, &t), *b = g_hash_table_lookup (got, &t);
    if (i >= lost && i < lost + nlost)
      continue;
    res.missing += b == NULL;
    if (b && !g_bytes_equal (a, b))
      res.differ_after = i;
  }
  g_print ("intra-refresh=%d, frames %u-%u lost, %s: %u later frames not output, %"
      G_GUINT64_FORMAT " filled, pictures differ until frame %d\n", intra_refresh, lost,
      lost + nlost - 1, fill ? "h264wrapfill" : "no filler", res.missing, res.filled,
      res.differ_after);
  g_hash_table_unref (full);
  g_hash_table_unref (got);
  g_array_free (pts, TRUE);
  g_ptr_array_unref (pkts);
  gst_caps_unref (caps);
  return res;
}

static guint
not_output_after_loss (gboolean intra_refresh, guint lost)
{
  return after_loss (intra_refresh, lost, 1, FALSE).missing;
}

GST_START_TEST (test_lost_frame_num_wrap)
{
  if (!have ("x264enc") || !have ("avdec_h264"))
    return;
  fail_unless_equals_int (not_output_after_loss (TRUE, 100), 0);
  fail_unless (not_output_after_loss (TRUE, 96) >= 25, "frame_num 0 lost: fewer dropped");
  fail_unless_equals_int (not_output_after_loss (FALSE, 96), 0);
  fail_unless (not_output_after_loss (FALSE, 91) >= 5, "IDR stream, frame_num 0 lost: fewer "
      "dropped");
}
GST_END_TEST;

/* h264wrapfill: every frame that arrived is output after a lost frame_num 0 (alone, with the
 * frame before, with the frame after; and frame 91 of the IDR stream), one synthetic picture per such loss (shown in the last
 * lost frame's slot: the picture before the loss again); the picture is the whole stream's
 * again once the next refresh sweep has passed (intra refresh keeps its recovery). Any other
 * loss decodes exactly as without the filler: a P frame in either stream, and a lost IDR
 * frame (frame 100 of the IDR stream: frame_num goes down too, but not as a wrap would), whose
 * P frames the decoder keeps dropping rather than showing them predicted from the wrong
 * picture. */
GST_START_TEST (test_lost_frame_num_wrap_filled)
{
  static const guint cases[][4] = {     /* first lost, frames lost, intra refresh, wraps */
    {96, 1, TRUE, TRUE}, {95, 2, TRUE, TRUE}, {96, 2, TRUE, TRUE}, {64, 1, TRUE, TRUE},
    {91, 1, FALSE, TRUE}, {100, 1, TRUE, FALSE}, {96, 1, FALSE, FALSE}, {100, 1, FALSE, FALSE},
  };
  guint k;

  if (!have ("x264enc") || !have ("avdec_h264"))
    return;
  for (k = 0; k < G_N_ELEMENTS (cases); k++) {
    guint lost = cases[k][0], n = cases[k][1];
    gboolean ir = cases[k][2], wrap = cases[k][3];
    LossResult r = after_loss (ir, lost, n, TRUE), bare = after_loss (ir, lost, n, FALSE);

    fail_unless_equals_int ((gint) r.filled, wrap ? 1 : 0);
    if (!wrap) {
      fail_unless_equals_int (r.missing, bare.missing);
      fail_unless_equals_int (r.shown, bare.shown);
      fail_unless_equals_int (r.differ_after, bare.differ_after);
      continue;
    }
    /* up to the next wrap (intra refresh) or the next IDR (frame 100 in the IDR stream) */
    fail_unless (bare.missing >= (ir ? 25u : 5u), "frames %u-%u lost: only %u dropped without "
        "the filler", lost, lost + n - 1, bare.missing);
    fail_unless_equals_int (r.missing, 0);
    /* the synthetic picture is shown in the last lost frame's slot, as the picture before */
    fail_unless_equals_int (r.shown, FRAMES - n + 1);
    fail_unless (r.held, "frames %u-%u lost: the filled slot is not the picture before the "
        "loss", lost, lost + n - 1);
    /* the next sweep starts at the first multiple of KEY_INT after the loss; one sweep later
     * the picture is whole (IDR stream: from the next IDR on) */
    fail_unless (r.differ_after < (gint) (((lost + n) / KEY_INT + 2) * KEY_INT),
        "frames %u-%u lost: pictures differ until %d", lost, lost + n - 1, r.differ_after);
  }
}
GST_END_TEST;

/* ---- key frames on demand ---------------------------------------------------------------- */

typedef struct {
  GMutex lock;
  GstElement *enc;
  guint in, out;
  GArray *keys;                 /* output indices flagged as key frames */
} Demand;

static GstPadProbeReturn
demand_in (GstPad * pad, GstPadProbeInfo * info, Demand * d)
{
  guint n;

  g_mutex_lock (&d->lock);
  n = d->in++;
  g_mutex_unlock (&d->lock);
  /* three requests in a row (e.g. three receivers' PLIs): one sweep answers them all */
  if (n >= 60 && n <= 62)
    gst_pad_push_event (pad, gst_video_event_new_upstream_force_key_unit (GST_CLOCK_TIME_NONE,
            FALSE, n));
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
demand_out (GstPad * pad, GstPadProbeInfo * info, Demand * d)
{
  g_mutex_lock (&d->lock);
  if (!GST_BUFFER_FLAG_IS_SET (GST_PAD_PROBE_INFO_BUFFER (info), GST_BUFFER_FLAG_DELTA_UNIT))
    g_array_append_val (d->keys, d->out);
  d->out++;
  g_mutex_unlock (&d->lock);
  return GST_PAD_PROBE_OK;
}

/* With intra refresh a force-key-unit request (what rtpbin makes of a receiver's PLI) starts a
 * new sweep at once when none runs: key-int-max=250, so without requests no sweep would start
 * before frame 250; the first sweep (20 columns, one per frame) is over by frame 60. */
GST_START_TEST (test_key_on_demand_intra_refresh)
{
  Demand d = { 0 };
  GstElement *pipe;
  GstPad *pad;
  GstBus *bus;
  GstMessage *m;
  guint i, late = 0;

  if (!have ("x264enc"))
    return;
  pipe = gst_parse_launch ("videotestsrc num-buffers=120 pattern=ball ! "
      "video/x-raw,format=I420,width=320,height=180,framerate=25/1 ! x264enc name=enc "
      "tune=zerolatency speed-preset=ultrafast threads=1 key-int-max=250 intra-refresh=true ! "
      "fakesink name=out sync=false", NULL);
  fail_unless (pipe != NULL);
  g_mutex_init (&d.lock);
  d.keys = g_array_new (FALSE, FALSE, sizeof (guint));
  d.enc = gst_bin_get_by_name (GST_BIN (pipe), "enc");
  pad = gst_element_get_static_pad (d.enc, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, (GstPadProbeCallback) demand_out, &d,
      NULL);
  gst_object_unref (pad);
  {
    GstElement *out = gst_bin_get_by_name (GST_BIN (pipe), "out");
    pad = gst_element_get_static_pad (out, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, (GstPadProbeCallback) demand_in, &d,
        NULL);
    gst_object_unref (pad);
    gst_object_unref (out);
  }
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m != NULL && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  for (i = 0; i < d.keys->len; i++)
    g_print ("key frame (sweep start) at output frame %u\n", g_array_index (d.keys, guint, i));
  /* the first request starts a sweep at once; the two made while it runs are queued by x264
   * as one more sweep after it (20 frames later), not one each */
  fail_unless_equals_int (d.keys->len, 3);
  fail_unless_equals_int (g_array_index (d.keys, guint, 0), 0);
  late = g_array_index (d.keys, guint, 1);
  fail_unless (late >= 60 && late <= 64, "first sweep on demand at frame %u", late);
  i = g_array_index (d.keys, guint, 2);
  fail_unless (i >= late + 15 && i <= late + 25, "queued sweep at frame %u", i);
  g_array_free (d.keys, TRUE);
  g_mutex_clear (&d.lock);
  gst_object_unref (d.enc);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* ---- the option reaches the encoder ------------------------------------------------------ */

typedef struct {
  GMutex lock;
  guint idr_frames, key_frames;
  guint32 last_idr_ts;
  gboolean any_idr;
} Count;

/* Does this H.264 RTP payload (RFC 6184) carry an IDR slice? Single NAL unit, STAP-A (every
 * unit, bounded by len) or the start fragment of an FU-A. */
static gboolean
payload_has_idr (const guint8 * p, guint len)
{
  guint type, off;

  if (len < 1)
    return FALSE;
  type = p[0] & 0x1f;
  if (type == 28)
    return len >= 2 && (p[1] & 0x80) && (p[1] & 0x1f) == 5;
  if (type != 24)
    return type == 5;
  for (off = 1; off + 2 < len;) {
    guint n = ((guint) p[off] << 8) | p[off + 1];
    if (n == 0 || off + 2 + n > len)
      return FALSE;
    if ((p[off + 2] & 0x1f) == 5)
      return TRUE;
    off += 2 + n;
  }
  return FALSE;
}

static GstPadProbeReturn
rtp_probe (GstPad * pad, GstPadProbeInfo * info, Count * c)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);

  if (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp)) {
    guint32 ts = gst_rtp_buffer_get_timestamp (&rtp);
    g_mutex_lock (&c->lock);
    if (payload_has_idr (gst_rtp_buffer_get_payload (&rtp),
            gst_rtp_buffer_get_payload_len (&rtp)) && (!c->any_idr || ts != c->last_idr_ts)) {
      c->idr_frames++;
      c->last_idr_ts = ts;
      c->any_idr = TRUE;
    }
    g_mutex_unlock (&c->lock);
    gst_rtp_buffer_unmap (&rtp);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
enc_probe (GstPad * pad, GstPadProbeInfo * info, Count * c)
{
  if (!GST_BUFFER_FLAG_IS_SET (GST_PAD_PROBE_INFO_BUFFER (info), GST_BUFFER_FLAG_DELTA_UNIT)) {
    g_mutex_lock (&c->lock);
    c->key_frames++;
    g_mutex_unlock (&c->lock);
  }
  return GST_PAD_PROBE_OK;
}

/* 60 frames, key-int-max=10, through asmpsink with the given intra-refresh; returns the
 * encoder's intra-refresh at the end, counts in c, bus warnings in *warnings. */
static gboolean
run_sink (const gchar * enc_desc, const gchar * pay, gboolean sink_ir, Count * c,
    guint * warnings)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=60 pattern=ball ! "
      "video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! %s name=enc ! "
      "%s name=pay ! asmpsink name=sink address=127.0.0.1 port=%d intra-refresh=%s "
      "rtcp-interval=100", enc_desc, pay, amt_free_port_pair (), sink_ir ? "true" : "false");
  GstElement *pipe = gst_parse_launch (desc, NULL), *enc, *pay_el;
  GstPad *pad;
  GstBus *bus;
  GstMessage *m;
  gboolean ir = FALSE;
  guint errors = 0;

  fail_unless (pipe != NULL, "%s", desc);
  g_mutex_init (&c->lock);
  enc = gst_bin_get_by_name (GST_BIN (pipe), "enc");
  pay_el = gst_bin_get_by_name (GST_BIN (pipe), "pay");
  pad = gst_element_get_static_pad (enc, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, (GstPadProbeCallback) enc_probe, c, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (pay_el, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, (GstPadProbeCallback) rtp_probe, c, NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (pipe);
  *warnings = 0;
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE);
  while ((m = gst_bus_timed_pop (bus, 60 * GST_SECOND))) {
    GstMessageType t = GST_MESSAGE_TYPE (m);
    if (t == GST_MESSAGE_WARNING)
      (*warnings)++;
    if (t == GST_MESSAGE_ERROR)
      errors++;
    gst_message_unref (m);
    if (t == GST_MESSAGE_EOS || t == GST_MESSAGE_ERROR)
      break;
  }
  fail_unless (m != NULL, "pipeline did not finish");
  fail_unless_equals_int (errors, 0);
  gst_element_set_state (pipe, GST_STATE_NULL);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (enc), "intra-refresh"))
    g_object_get (enc, "intra-refresh", &ir, NULL);
  gst_object_unref (enc);
  gst_object_unref (pay_el);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_mutex_clear (&c->lock);
  g_free (desc);
  return ir;
}

GST_START_TEST (test_sink_sets_intra_refresh)
{
  Count on = { 0 }, off = { 0 };
  guint w_on, w_off;
  gboolean ir_on, ir_off;

  if (!have ("x264enc") || !have ("rtph264pay"))
    return;
  ir_on = run_sink ("x264enc tune=zerolatency key-int-max=10", "rtph264pay", TRUE, &on, &w_on);
  ir_off = run_sink ("x264enc tune=zerolatency key-int-max=10", "rtph264pay", FALSE, &off,
      &w_off);
  g_print ("intra-refresh on: %u IDR frames, %u key frames; off: %u IDR, %u key\n",
      on.idr_frames, on.key_frames, off.idr_frames, off.key_frames);
  fail_unless (ir_on, "asmpsink intra-refresh=true did not reach x264enc");
  fail_unless (!ir_off, "asmpsink intra-refresh=false changed x264enc");
  fail_unless_equals_int (on.idr_frames, 1);   /* the first frame only */
  fail_unless (on.key_frames >= 5, "%u refresh periods flagged in 60 frames", on.key_frames);
  fail_unless (off.idr_frames >= 6, "%u IDR frames in 60 with key-int-max=10", off.idr_frames);
  fail_unless_equals_int (w_on, 0);
  fail_unless_equals_int (w_off, 0);
}
GST_END_TEST;

/* vp8enc has no intra refresh: a warning on the bus, and the stream still flows. */
GST_START_TEST (test_sink_intra_refresh_other_encoder)
{
  Count c = { 0 };
  guint warnings;

  if (!have ("vp8enc") || !have ("rtpvp8pay"))
    return;
  run_sink ("vp8enc deadline=1 keyframe-max-dist=10", "rtpvp8pay", TRUE, &c, &warnings);
  fail_unless_equals_int (warnings, 1);
  fail_unless (c.key_frames >= 5, "vp8enc kept its key frames: %u", c.key_frames);
}
GST_END_TEST;

static Suite *
intra_suite (void)
{
  Suite *s = suite_create ("intra-refresh");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sink_sets_intra_refresh);
  tcase_add_test (tc, test_sink_intra_refresh_other_encoder);
  tcase_add_test (tc, test_late_joiner_intra_refresh);
  tcase_add_test (tc, test_late_joiner_intra_refresh_no_corrupt);
  tcase_add_test (tc, test_late_joiner_idr);
  tcase_add_test (tc, test_lost_frame_num_wrap);
  tcase_add_test (tc, test_lost_frame_num_wrap_filled);
  tcase_add_test (tc, test_key_on_demand_intra_refresh);
  return s;
}

GST_CHECK_MAIN (intra);
