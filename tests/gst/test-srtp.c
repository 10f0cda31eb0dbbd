/* test-srtp.c - gst/common/gstamsrtp.c, the SRTP/SRTCP slots rtpbin gets (and avmrcsrc uses):
 * the srtp-key property's checks on every element that has it, an encoder/decoder pair that
 * round-trips RTP and RTCP with the key and rejects another key, a forgery and a replay (all
 * counted), the bound on the SSRCs srtpdec keys for packets that never authenticate, the
 * rollover counter of a receiver that joins after the sequence number wrapped, and the
 * protected BYE a receiver sends itself. GstHarness on the slots; no network. */
#include "amgsttest.h"
#include <amcc/seq.h>
#include "common/gstamnet.h"
#include "common/gstamsrtp.h"

#define KEY "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define KEY2 "f00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define RTP_CAPS "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96"

static GParamSpec *key_pspec;

static void
set_key (GstAmSrtp * s, const gchar * hex)
{
  GValue v = G_VALUE_INIT;

  if (!key_pspec)
    key_pspec = g_param_spec_ref_sink (g_param_spec_string ("srtp-key", NULL, NULL, NULL,
            G_PARAM_WRITABLE));
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, hex);
  fail_unless (gst_am_srtp_set_property (s, key_pspec, &v));
  g_value_unset (&v);
}

/* One side of a test: an owner for the errors and its GstAmSrtp. */
typedef struct {
  GstElement *owner;
  GstAmSrtp *s;
} Side;

static void
side_init (Side * d, const gchar * hex)
{
  d->owner = gst_object_ref_sink (gst_bin_new (NULL));
  d->s = gst_am_srtp_new (d->owner, NULL);
  set_key (d->s, hex);
}

static void
side_clear (Side * d)
{
  gst_am_srtp_free (d->s);
  gst_object_unref (d->owner);
}

/* A harness on one path of a slot (the slot is started first) */
static GstHarness *
slot_harness (GstElement * slot, const gchar * sink, const gchar * src, const gchar * caps)
{
  GstHarness *h = gst_harness_new_with_element (slot, sink, src);

  gst_harness_set_src_caps_str (h, caps);
  return h;
}

static guint64
stat_u64 (GstAmSrtp * s, const gchar * name)
{
  GstStructure *st = gst_structure_new_empty ("t");
  guint64 v = 0;
  guint u;

  gst_am_srtp_add_stats (s, st);
  if (!gst_structure_get_uint64 (st, name, &v) && gst_structure_get_uint (st, name, &u))
    v = u;
  gst_structure_free (st);
  return v;
}

/* RTP with a known payload and, like asmpsink's, the extended sequence number stamped */
static GstBuffer *
rtp_packet (guint32 ssrc, guint16 seq, amcc_seq_ext * ext)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (200, 0, 0);
  GstRTPBuffer r = GST_RTP_BUFFER_INIT;
  guint8 *p;
  guint i;

  fail_unless (gst_rtp_buffer_map (b, GST_MAP_WRITE, &r));
  gst_rtp_buffer_set_ssrc (&r, ssrc);
  gst_rtp_buffer_set_seq (&r, seq);
  gst_rtp_buffer_set_payload_type (&r, 96);
  gst_rtp_buffer_set_timestamp (&r, seq * 3000u);
  p = gst_rtp_buffer_get_payload (&r);
  for (i = 0; i < 200; i++)
    p[i] = (guint8) (i + seq);
  if (ext)
    fail_unless (gst_am_rtp_stamp_mapped (&r, 0, amcc_seq_ext_update (ext, seq)));
  gst_rtp_buffer_unmap (&r);
  return b;
}

static gboolean
same_bytes (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo m;
  gboolean eq;

  if (gst_buffer_get_size (a) != gst_buffer_get_size (b))
    return FALSE;
  gst_buffer_map (a, &m, GST_MAP_READ);
  eq = gst_buffer_memcmp (b, 0, m.data, m.size) == 0;
  gst_buffer_unmap (a, &m);
  return eq;
}

/* ---- the key ---- */
GST_START_TEST (test_key_parse)
{
  GBytes *k = NULL;
  GError *err = NULL;
  gchar *upper = g_ascii_strup (KEY, -1), *bad = g_strdup (KEY);
  gsize n;
  const guint8 *b;

  fail_unless (gst_am_srtp_parse_key (NULL, &k, NULL) && k == NULL);
  fail_unless (gst_am_srtp_parse_key ("", &k, NULL) && k == NULL);
  fail_unless (gst_am_srtp_parse_key (KEY, &k, NULL) && k);
  b = g_bytes_get_data (k, &n);
  fail_unless_equals_int (n, GST_AM_SRTP_KEY_BYTES);
  fail_unless (b[0] == 0x00 && b[15] == 0x0f && b[29] == 0x1d);
  g_bytes_unref (k);
  fail_unless (gst_am_srtp_parse_key (upper, &k, NULL) && k);       /* either case */
  g_bytes_unref (k);
  /* too short, too long: the length is named, never the key */
  fail_if (gst_am_srtp_parse_key ("0011", &k, &err));
  fail_unless (k == NULL && strstr (err->message, "want 60 hex digits")
      && strstr (err->message, "got 4 characters"), "%s", err->message);
  g_clear_error (&err);
  fail_if (gst_am_srtp_parse_key (KEY "00", &k, &err));
  fail_unless (strstr (err->message, "got 62") && !strstr (err->message, "0102030405"));
  g_clear_error (&err);
  bad[6] = 'g';
  fail_if (gst_am_srtp_parse_key (bad, &k, &err));
  fail_unless (strstr (err->message, "character 7 is not a hex digit"), "%s", err->message);
  g_clear_error (&err);
  bad[6] = ' ';
  fail_if (gst_am_srtp_parse_key (bad, &k, NULL));
  g_free (upper);
  g_free (bad);
}

GST_END_TEST;

/* NULL -> READY with this key: the state change's result and the bus error's text */
static GstStateChangeReturn
ready_with_key (GstElement * el, const gchar * hex, gchar ** error_text)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *m;
  GstStateChangeReturn r;

  gst_element_set_bus (el, bus);
  g_object_set (el, "srtp-key", hex, NULL);
  r = gst_element_set_state (el, GST_STATE_READY);
  *error_text = NULL;
  if ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *e = NULL;
    gst_message_parse_error (m, &e, NULL);
    *error_text = g_strdup (e->message);
    g_error_free (e);
    gst_message_unref (m);
  }
  gst_element_set_state (el, GST_STATE_NULL);
  gst_element_set_bus (el, NULL);
  gst_object_unref (bus);
  return r;
}

/* Every element with an rtpbin (and avmrcsrc, whose layers it decodes) takes srtp-key: it is
 * write-only (a secret), and a key that is not 60 hex digits stops NULL -> READY with a clear
 * error; a good one starts. Loopback addresses, free ports. */
GST_START_TEST (test_elements_check_the_key)
{
  const gchar *factories[] = { "asmpsink", "asmpsrc", "avmrclayers", "avmrcsrc",
    "asspsimulcast", "asspsrc"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (factories); i++) {
    GstElement *el = gst_element_factory_make (factories[i], NULL);
    GParamSpec *ps;
    gint port = amt_free_port_pair ();
    gchar *err = NULL;

    fail_unless (el != NULL, "%s", factories[i]);
    gst_object_ref_sink (el);
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (el), "srtp-key");
    fail_unless (ps != NULL, "%s has no srtp-key", factories[i]);
    fail_unless ((ps->flags & G_PARAM_WRITABLE) && !(ps->flags & G_PARAM_READABLE),
        "%s: srtp-key is write-only", factories[i]);
    if (!strcmp (factories[i], "asspsrc")) {
      gchar *st = g_strdup_printf ("127.0.0.1:%d", port);
      g_object_set (el, "streams", st, NULL);
      g_free (st);
    } else if (!strcmp (factories[i], "asspsimulcast")) {
      GstPad *p = gst_element_request_pad_simple (el, "sink_0");
      g_object_set (p, "address", "127.0.0.1", "port", port, NULL);
      gst_object_unref (p);
    } else {
      g_object_set (el, "address", "127.0.0.1", "port", port, NULL);
    }
    fail_unless_equals_int (ready_with_key (el, "0011", &err), GST_STATE_CHANGE_FAILURE);
    fail_unless (err && strstr (err, "srtp-key: want 60 hex digits"), "%s: %s", factories[i],
        GST_STR_NULL (err));
    g_free (err);
    fail_unless_equals_int (ready_with_key (el, KEY "zz", &err), GST_STATE_CHANGE_FAILURE);
    g_free (err);
    {
      gchar *x = g_strdup (KEY);
      x[0] = 'x';
      fail_unless_equals_int (ready_with_key (el, x, &err), GST_STATE_CHANGE_FAILURE);
      fail_unless (err && strstr (err, "character 1 is not a hex digit"), "%s: %s",
          factories[i], GST_STR_NULL (err));
      g_free (err);
      g_free (x);
    }
    fail_unless (ready_with_key (el, KEY, &err) != GST_STATE_CHANGE_FAILURE, "%s: %s",
        factories[i], GST_STR_NULL (err));
    g_free (err);
    fail_unless (ready_with_key (el, "", &err) != GST_STATE_CHANGE_FAILURE, "%s (off): %s",
        factories[i], GST_STR_NULL (err));
    g_free (err);
    gst_object_unref (el);
  }
}

GST_END_TEST;

/* ---- an encoder/decoder pair ---- */
GST_START_TEST (test_rtp_roundtrip_and_wrong_key)
{
  Side tx, rx, other;
  GstHarness *he, *hd, *hw;
  GstElement *enc, *dec, *wrong;
  amcc_seq_ext ext = { 0 };
  GstCaps *caps;
  guint i;

  side_init (&tx, KEY);
  side_init (&rx, KEY);
  side_init (&other, KEY2);
  enc = gst_am_srtp_encoder (tx.s, 0);
  dec = gst_am_srtp_decoder (rx.s, 0);
  wrong = gst_am_srtp_decoder (other.s, 0);
  fail_unless (gst_am_srtp_start (tx.s) && gst_am_srtp_start (rx.s)
      && gst_am_srtp_start (other.s));
  fail_unless (gst_am_srtp_enabled (tx.s));
  he = slot_harness (enc, "rtp_sink_0", "rtp_src_0", RTP_CAPS);
  hd = slot_harness (dec, "rtp_sink", "rtp_src", RTP_CAPS);
  hw = slot_harness (wrong, "rtp_sink", "rtp_src", RTP_CAPS);
  for (i = 0; i < 50; i++) {
    GstBuffer *plain = rtp_packet (0x1234, (guint16) (1000 + i), &ext);
    GstBuffer *sec = gst_harness_push_and_pull (he, gst_buffer_ref (plain)), *back;
    GstMapInfo a, b;

    fail_unless (sec != NULL);
    /* the header stays (and is authenticated), the payload is encrypted, the tag added */
    fail_unless_equals_int (gst_buffer_get_size (sec),
        gst_buffer_get_size (plain) + GST_AM_SRTP_TAG_BYTES);
    gst_buffer_map (plain, &a, GST_MAP_READ);
    gst_buffer_map (sec, &b, GST_MAP_READ);
    fail_unless (memcmp (a.data, b.data, 12) == 0);
    fail_unless (memcmp (a.data + a.size - 100, b.data + a.size - 100, 100) != 0);
    gst_buffer_unmap (plain, &a);
    gst_buffer_unmap (sec, &b);
    gst_harness_push (hw, gst_buffer_copy (sec));
    back = gst_harness_push_and_pull (hd, sec);
    fail_unless (back && same_bytes (back, plain), "packet %u", i);
    gst_buffer_unref (back);
    gst_buffer_unref (plain);
  }
  /* the encoder's output caps: x-rtp for what follows (udpsink, the FEC encoder), no key */
  caps = gst_pad_get_current_caps (he->sinkpad);
  fail_unless (caps != NULL);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0), "application/x-rtp"));
  fail_if (gst_structure_has_field (gst_caps_get_structure (caps, 0), "srtp-key"),
      "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  /* another key: nothing decoded, every packet counted */
  fail_unless_equals_int (gst_harness_buffers_received (hw), 0);
  fail_unless_equals_int (stat_u64 (other.s, "srtp-rtp-rejected"), 50);
  fail_unless_equals_int (stat_u64 (rx.s, "srtp-rtp-rejected"), 0);
  /* a forged packet (plain RTP in the sender's SSRC) and a replay: dropped and counted */
  gst_harness_push (hd, rtp_packet (0x1234, 1100, NULL));
  {
    GstBuffer *sec = gst_harness_push_and_pull (he, rtp_packet (0x1234, 1050, &ext));
    GstBuffer *ok = gst_harness_push_and_pull (hd, gst_buffer_copy (sec));
    fail_unless (ok != NULL);
    gst_buffer_unref (ok);
    gst_harness_push (hd, sec);         /* the same packet again */
  }
  fail_unless_equals_int (gst_harness_buffers_received (hd), 51);
  fail_unless_equals_int (stat_u64 (rx.s, "srtp-rtp-rejected"), 2);
  gst_harness_teardown (he);
  gst_harness_teardown (hd);
  gst_harness_teardown (hw);
  gst_object_unref (enc);
  gst_object_unref (dec);
  gst_object_unref (wrong);
  side_clear (&tx);
  side_clear (&rx);
  side_clear (&other);
}

GST_END_TEST;

/* RTCP: the feedback. Several members' SSRCs under one key, each with its own SRTCP index */
GST_START_TEST (test_rtcp_roundtrip_members)
{
  Side tx, rx, other;
  GstHarness *he[3], *hd, *hw;
  GstElement *enc[3], *dec, *wrong;
  guint i, k;

  side_init (&tx, KEY);
  side_init (&rx, KEY);
  side_init (&other, KEY2);
  for (k = 0; k < 3; k++)       /* three members (three encoders), one receiving decoder */
    enc[k] = gst_am_srtp_encoder (tx.s, k);
  dec = gst_am_srtp_decoder (rx.s, 0);
  wrong = gst_am_srtp_encoder (other.s, 0);
  fail_unless (gst_am_srtp_start (tx.s) && gst_am_srtp_start (rx.s)
      && gst_am_srtp_start (other.s));
  for (k = 0; k < 3; k++) {
    gchar *sink = g_strdup_printf ("rtcp_sink_%u", k), *src = g_strdup_printf ("rtcp_src_%u", k);
    he[k] = slot_harness (enc[k], sink, src, "application/x-rtcp");
    g_free (sink);
    g_free (src);
  }
  hd = slot_harness (dec, "rtcp_sink", "rtcp_src", "application/x-rtcp");
  hw = slot_harness (wrong, "rtcp_sink_0", "rtcp_src_0", "application/x-rtcp");
  for (i = 0; i < 20; i++) {
    for (k = 0; k < 3; k++) {
      GstBuffer *plain = gst_am_rtcp_new_bye (0xA000 + k, "member@test");
      GstBuffer *sec = gst_harness_push_and_pull (he[k], gst_buffer_ref (plain)), *back;
      /* SRTCP: E flag + 31-bit index, then the tag */
      fail_unless_equals_int (gst_buffer_get_size (sec), gst_buffer_get_size (plain) + 4
          + GST_AM_SRTP_TAG_BYTES);
      back = gst_harness_push_and_pull (hd, sec);
      fail_unless (back && same_bytes (back, plain), "round %u member %u", i, k);
      gst_buffer_unref (back);
      gst_buffer_unref (plain);
    }
  }
  fail_unless_equals_int (stat_u64 (rx.s, "srtp-ssrcs"), 3);
  /* with another key, in a member's name: rejected; plain RTCP (no key): rejected */
  gst_harness_push (hd, gst_harness_push_and_pull (hw, gst_am_rtcp_new_bye (0xA001, "x")));
  gst_harness_push (hd, gst_am_rtcp_new_bye (0xA002, "forged"));
  gst_harness_push (hd, gst_am_rtcp_new_bye (0xBAD, "forged"));
  fail_unless_equals_int (gst_harness_buffers_received (hd), 60);
  fail_unless_equals_int (stat_u64 (rx.s, "srtp-rtcp-rejected"), 3);
  for (k = 0; k < 3; k++) {
    gst_harness_teardown (he[k]);
    gst_object_unref (enc[k]);
  }
  gst_harness_teardown (hd);
  gst_harness_teardown (hw);
  gst_object_unref (dec);
  gst_object_unref (wrong);
  side_clear (&tx);
  side_clear (&rx);
  side_clear (&other);
}

GST_END_TEST;

/* Forged packets from new SSRCs: srtpdec makes a stream (about 30 KB, never freed alone) for
 * each before it authenticates; at most GST_AM_SRTP_MAX_UNPROVEN are keyed, the rest refused,
 * the table cleared (once per GST_AM_SRTP_CLEAR_GAP_NS) and the honest member keyed again. */
GST_START_TEST (test_forged_ssrcs_bounded)
{
  GstTestClock *clock = GST_TEST_CLOCK (gst_test_clock_new ());
  Side tx, rx;
  GstHarness *he, *hd;
  GstElement *enc, *dec;
  GstBuffer *b;
  guint i;

  gst_system_clock_set_default (GST_CLOCK (clock));
  side_init (&tx, KEY);
  side_init (&rx, KEY);
  enc = gst_am_srtp_encoder (tx.s, 0);
  dec = gst_am_srtp_decoder (rx.s, 0);
  fail_unless (gst_am_srtp_start (tx.s) && gst_am_srtp_start (rx.s));
  he = slot_harness (enc, "rtcp_sink_0", "rtcp_src_0", "application/x-rtcp");
  hd = slot_harness (dec, "rtcp_sink", "rtcp_src", "application/x-rtcp");
  /* an honest member first */
  b = gst_harness_push_and_pull (hd, gst_harness_push_and_pull (he,
          gst_am_rtcp_new_bye (0x600D, "honest")));
  fail_unless (b != NULL);
  gst_buffer_unref (b);
  for (i = 0; i < 1000; i++)
    gst_harness_push (hd, gst_am_rtcp_new_bye (0xF0000000 + i, "forged"));
  fail_unless_equals_int (gst_harness_buffers_received (hd), 1);
  fail_unless_equals_int (stat_u64 (rx.s, "srtp-rtcp-rejected"), 1000);
  /* keyed at most: the honest one and MAX_UNPROVEN forged ones (cleared once on the way) */
  fail_unless (stat_u64 (rx.s, "srtp-ssrcs") <= 1 + GST_AM_SRTP_MAX_UNPROVEN);
  fail_unless (stat_u64 (rx.s, "srtp-refused") >= 1000 - 2 * GST_AM_SRTP_MAX_UNPROVEN);
  fail_unless_equals_int (stat_u64 (rx.s, "srtp-clears"), 1);
  /* the honest member was keyed again after the clear (its table entry stays proven) */
  b = gst_harness_push_and_pull (hd, gst_harness_push_and_pull (he,
          gst_am_rtcp_new_bye (0x600D, "honest")));
  fail_unless (b != NULL);
  gst_buffer_unref (b);
  /* a new honest member while the forged ones fill the budget: refused until the next clear */
  {
    GstHarness *h2;
    GstElement *enc2 = gst_am_srtp_encoder (tx.s, 1);
    GstBuffer *sec;
    h2 = slot_harness (enc2, "rtcp_sink_1", "rtcp_src_1", "application/x-rtcp");
    sec = gst_harness_push_and_pull (h2, gst_am_rtcp_new_bye (0x1EE, "late"));
    gst_harness_push (hd, gst_buffer_copy (sec));
    fail_unless_equals_int (gst_harness_buffers_received (hd), 2);
    gst_test_clock_advance_time (clock, GST_AM_SRTP_CLEAR_GAP_NS);
    gst_harness_push (hd, gst_am_rtcp_new_bye (0xF1000000, "forged"));   /* clears */
    b = gst_harness_push_and_pull (hd, gst_harness_push_and_pull (h2,
            gst_am_rtcp_new_bye (0x1EE, "late")));
    fail_unless (b != NULL);
    gst_buffer_unref (b);
    gst_buffer_unref (sec);
    gst_harness_teardown (h2);
    gst_object_unref (enc2);
  }
  fail_unless_equals_int (stat_u64 (rx.s, "srtp-clears"), 2);
  gst_harness_teardown (he);
  gst_harness_teardown (hd);
  gst_object_unref (enc);
  gst_object_unref (dec);
  side_clear (&tx);
  side_clear (&rx);
  gst_system_clock_set_default (NULL);
  gst_object_unref (clock);
}

GST_END_TEST;

/* A receiver that joins after the sender's sequence number wrapped: srtpdec needs the rollover
 * counter, which the extended sequence number in asmpsink's header extension gives. Without the
 * extension (or, later, its SR first) the ROC would be 0 and nothing decodes. */
GST_START_TEST (test_late_joiner_roc)
{
  Side tx, rx, bare, srfirst;
  GstHarness *he, *hr, *hd, *hb, *hs, *hsr;
  GstElement *enc, *dec, *decb, *decs;
  amcc_seq_ext ext = { 0 };
  GstBuffer *pkts[20], *nostamp[20];
  guint i, n = 0;

  side_init (&tx, KEY);
  side_init (&rx, KEY);
  side_init (&bare, KEY);
  side_init (&srfirst, KEY);
  enc = gst_am_srtp_encoder (tx.s, 0);
  dec = gst_am_srtp_decoder (rx.s, 0);
  decb = gst_am_srtp_decoder (bare.s, 0);
  decs = gst_am_srtp_decoder (srfirst.s, 0);
  fail_unless (gst_am_srtp_start (tx.s) && gst_am_srtp_start (rx.s)
      && gst_am_srtp_start (bare.s) && gst_am_srtp_start (srfirst.s));
  he = slot_harness (enc, "rtp_sink_0", "rtp_src_0", RTP_CAPS);
  hr = slot_harness (enc, "rtcp_sink_0", "rtcp_src_0", "application/x-rtcp");
  /* 70000 packets from seq 60000: the 16-bit number wraps once (ROC 1 at the end) */
  for (i = 0; i < 70000; i++) {
    guint16 seq = (guint16) (60000 + i);
    GstBuffer *p = gst_harness_push_and_pull (he, rtp_packet (0x5EED, seq, &ext));
    if (i >= 70000 - 20)
      pkts[n++] = p;
    else
      gst_buffer_unref (p);
  }
  hd = slot_harness (dec, "rtp_sink", "rtp_src", RTP_CAPS);
  for (i = 0; i < 20; i++)
    gst_harness_push (hd, gst_buffer_copy (pkts[i]));
  fail_unless_equals_int (gst_harness_buffers_received (hd), 20);
  /* the SR came first: keyed with ROC 0, then corrected at its RTP (one clear) */
  hs = slot_harness (decs, "rtp_sink", "rtp_src", RTP_CAPS);
  hsr = slot_harness (decs, "rtcp_sink", "rtcp_src", "application/x-rtcp");
  gst_harness_push (hsr, gst_harness_push_and_pull (hr, gst_am_rtcp_new_bye (0x5EED, "tx")));
  fail_unless_equals_int (gst_harness_buffers_received (hsr), 1);
  for (i = 0; i < 20; i++)
    gst_harness_push (hs, gst_buffer_copy (pkts[i]));
  fail_unless_equals_int (gst_harness_buffers_received (hs), 20);
  fail_unless_equals_int (stat_u64 (srfirst.s, "srtp-clears"), 1);
  /* no extension: ROC 0, nothing decodes (why asmpsink's stamp matters) */
  hb = slot_harness (decb, "rtp_sink", "rtp_src", RTP_CAPS);
  {
    Side tx2;
    GstElement *enc2;
    GstHarness *he2;
    side_init (&tx2, KEY);
    enc2 = gst_am_srtp_encoder (tx2.s, 0);
    fail_unless (gst_am_srtp_start (tx2.s));
    he2 = slot_harness (enc2, "rtp_sink_0", "rtp_src_0", RTP_CAPS);
    n = 0;
    for (i = 0; i < 70000; i++) {
      GstBuffer *p = gst_harness_push_and_pull (he2, rtp_packet (0x5EED, (guint16) (60000 + i),
              NULL));
      if (i >= 70000 - 20)
        nostamp[n++] = p;
      else
        gst_buffer_unref (p);
    }
    for (i = 0; i < 20; i++)
      gst_harness_push (hb, nostamp[i]);
    fail_unless_equals_int (gst_harness_buffers_received (hb), 0);
    gst_harness_teardown (he2);
    gst_object_unref (enc2);
    side_clear (&tx2);
  }
  for (i = 0; i < 20; i++)
    gst_buffer_unref (pkts[i]);
  gst_harness_teardown (he);
  gst_harness_teardown (hr);
  gst_harness_teardown (hd);
  gst_harness_teardown (hs);
  gst_harness_teardown (hsr);
  gst_harness_teardown (hb);
  gst_object_unref (enc);
  gst_object_unref (dec);
  gst_object_unref (decb);
  gst_object_unref (decs);
  side_clear (&tx);
  side_clear (&rx);
  side_clear (&bare);
  side_clear (&srfirst);
}

GST_END_TEST;

/* A receiver's BYE (gst_am_srtp_protect_rtcp): protected as the encoder's next packet, so the
 * sender accepts it after the member's RRs; off, the packet as it is */
GST_START_TEST (test_protect_rtcp)
{
  Side tx, rx, off;
  GstHarness *he, *hd;
  GstElement *enc, *dec, *enc_off;
  GstBuffer *bye, *sec, *back;
  guint i;

  side_init (&tx, KEY);
  side_init (&rx, KEY);
  side_init (&off, NULL);
  enc = gst_am_srtp_encoder (tx.s, 0);
  dec = gst_am_srtp_decoder (rx.s, 0);
  enc_off = gst_am_srtp_encoder (off.s, 0);
  fail_unless (gst_am_srtp_start (tx.s) && gst_am_srtp_start (rx.s) && gst_am_srtp_start (off.s));
  fail_if (gst_am_srtp_enabled (off.s));
  he = slot_harness (enc, "rtcp_sink_0", "rtcp_src_0", "application/x-rtcp");
  hd = slot_harness (dec, "rtcp_sink", "rtcp_src", "application/x-rtcp");
  for (i = 0; i < 3; i++) {
    back = gst_harness_push_and_pull (hd, gst_harness_push_and_pull (he,
            gst_am_rtcp_new_bye (0x77, "rx")));
    fail_unless (back != NULL);
    gst_buffer_unref (back);
  }
  bye = gst_am_rtcp_new_bye (0x77, "rx");
  sec = gst_am_srtp_protect_rtcp (tx.s, bye);
  fail_unless (sec != NULL && sec != bye);
  fail_unless_equals_int (gst_harness_buffers_in_queue (he), 0);   /* not pushed on */
  back = gst_harness_push_and_pull (hd, sec);
  fail_unless (back && same_bytes (back, bye));
  gst_buffer_unref (back);
  /* and the encoder goes on after it */
  back = gst_harness_push_and_pull (hd, gst_harness_push_and_pull (he,
          gst_am_rtcp_new_bye (0x77, "rx")));
  fail_unless (back != NULL);
  gst_buffer_unref (back);
  sec = gst_am_srtp_protect_rtcp (off.s, bye);
  fail_unless (sec == bye);
  gst_buffer_unref (sec);
  gst_buffer_unref (bye);
  gst_harness_teardown (he);
  gst_harness_teardown (hd);
  gst_object_unref (enc);
  gst_object_unref (dec);
  gst_object_unref (enc_off);
  side_clear (&tx);
  side_clear (&rx);
  side_clear (&off);
}

GST_END_TEST;

static Suite *
srtp_suite (void)
{
  Suite *s = suite_create ("gst-srtp");
  TCase *tc = tcase_create ("srtp");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_key_parse);
  tcase_add_test (tc, test_elements_check_the_key);
  tcase_add_test (tc, test_rtp_roundtrip_and_wrong_key);
  tcase_add_test (tc, test_rtcp_roundtrip_members);
  tcase_add_test (tc, test_forged_ssrcs_bounded);
  tcase_add_test (tc, test_late_joiner_roc);
  tcase_add_test (tc, test_protect_rtcp);
  return s;
}

GST_CHECK_MAIN (srtp);
