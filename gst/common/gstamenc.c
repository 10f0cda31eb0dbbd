/* gstamenc.c - encoder discovery and key-frame-aligned bitrate control. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamenc.h"

#include <string.h>

void
gst_am_encoder_init (GstAmEncoder * e)
{
  memset (e, 0, sizeof (*e));
  g_mutex_init (&e->lock);
  e->match = FALSE;
  amcc_encrate_init (&e->rate);
}

static void
detach_locked (GstAmEncoder * e)
{
  if (e->probe_pad) {
    gst_pad_remove_probe (e->probe_pad, e->probe_id);
    gst_object_unref (e->probe_pad);
    e->probe_pad = NULL;
  }
  gst_clear_object (&e->encoder);
  e->kind = GST_AM_ENC_NONE;
  e->pending_bps = 0;
}

void
gst_am_encoder_clear (GstAmEncoder * e)
{
  g_mutex_lock (&e->lock);
  detach_locked (e);
  g_mutex_unlock (&e->lock);
  g_mutex_clear (&e->lock);
}

static const gchar *
factory_name (GstElement * el)
{
  GstElementFactory *f = gst_element_get_factory (el);
  return f ? gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (f)) : "";
}

GstAmEncKind
gst_am_encoder_kind (GstElement * enc)
{
  const gchar *name;

  if (!enc)
    return GST_AM_ENC_NONE;
  name = factory_name (enc);
  if (!g_strcmp0 (name, "x264enc"))
    return GST_AM_ENC_X264;
  if (!g_strcmp0 (name, "vp8enc"))
    return GST_AM_ENC_VP8;
  if (!g_strcmp0 (name, "openh264enc"))
    return GST_AM_ENC_OPENH264;
  return GST_AM_ENC_OTHER;
}

const gchar *
gst_am_encoder_kind_name (GstAmEncKind kind)
{
  static const gchar *names[] = { "none", "x264enc", "vp8enc", "openh264enc", "other" };
  return names[kind];
}

static gboolean
is_encoder (GstElement * el)
{
  GstElementFactory *f = gst_element_get_factory (el);
  const gchar *klass;

  if (!f)
    return FALSE;
  klass = gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_KLASS);
  return klass && strstr (klass, "Encoder") != NULL;
}

GstElement *
gst_am_encoder_find_upstream (GstPad * pad)
{
  GstPad *cur = gst_object_ref (pad);
  guint depth;

  for (depth = 0; depth < 32; depth++) {
    GstPad *peer = gst_pad_get_peer (cur);
    GstElement *el;
    GstIterator *it;
    GValue v = G_VALUE_INIT;
    GstPad *next = NULL;

    gst_object_unref (cur);
    if (!peer)
      return NULL;
    /* inside a bin: the internal proxy of the bin's ghost sink pad; go on from that pad */
    if (GST_IS_PROXY_PAD (peer) && !GST_IS_GHOST_PAD (peer)) {
      cur = GST_PAD (gst_proxy_pad_get_internal (GST_PROXY_PAD (peer)));
      gst_object_unref (peer);
      if (!cur)
        return NULL;
      continue;
    }
    /* a bin's ghost src pad: descend to the element that really produces the data */
    while (GST_IS_GHOST_PAD (peer)) {
      GstPad *target = gst_ghost_pad_get_target (GST_GHOST_PAD (peer));
      gst_object_unref (peer);
      if (!target)
        return NULL;
      peer = target;
    }
    el = gst_pad_get_parent_element (peer);
    gst_object_unref (peer);
    if (!el)
      return NULL;
    if (is_encoder (el))
      return el;
    /* continue through the element's first sink pad (queue, tee, parser, payloader ...) */
    it = gst_element_iterate_sink_pads (el);
    if (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      next = g_value_dup_object (&v);
      g_value_unset (&v);
    }
    gst_iterator_free (it);
    gst_object_unref (el);
    if (!next)
      return NULL;
    cur = next;
  }
  gst_object_unref (cur);
  return NULL;
}

gboolean
gst_am_encoder_apply (GstElement * enc, GstAmEncKind kind, guint bps)
{
  switch (kind) {
    case GST_AM_ENC_X264:
      g_object_set (enc, "bitrate", MAX (1u, (bps + 500) / 1000), NULL);
      return TRUE;
    case GST_AM_ENC_VP8:
      g_object_set (enc, "target-bitrate", (gint) MIN (bps, (guint) G_MAXINT), NULL);
      return TRUE;
    case GST_AM_ENC_OPENH264:
      g_object_set (enc, "bitrate", bps, NULL);
      return TRUE;
    default:
      return FALSE;
  }
}

static GstPadProbeReturn
keyframe_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstAmEncoder *e = user_data;
  GstBuffer *buf;
  guint bps = 0, target;
  GstElement *enc = NULL;
  GstAmEncKind kind = GST_AM_ENC_NONE;
  amcc_time pts;
  gsize size;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = gst_pad_probe_info_get_buffer_list (info);
    buf = gst_buffer_list_length (l) ? gst_buffer_list_get (l, 0) : NULL;
    size = gst_buffer_list_calculate_size (l);
  } else {
    buf = gst_pad_probe_info_get_buffer (info);
    size = buf ? gst_buffer_get_size (buf) : 0;
  }
  if (!buf)
    return GST_PAD_PROBE_OK;
  pts = GST_BUFFER_PTS_IS_VALID (buf) ? (amcc_time) GST_BUFFER_PTS (buf) : AMCC_TIME_NONE;

  g_mutex_lock (&e->lock);
  if (!GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT) && e->encoder) {
    target = e->pending_bps ? e->pending_bps : e->applied_bps;
    bps = target;
    if (e->match && pts != AMCC_TIME_NONE && target)
      bps = (guint) MIN (amcc_encrate_setting (&e->rate, pts, target), (double) G_MAXINT);
    /* a new target, or the gain moved the setting by more than 1 % */
    if (e->pending_bps || (bps && ABS ((gint64) bps - (gint64) e->setting_bps) * 100 >
            (gint64) e->setting_bps)) {
      e->pending_bps = 0;
      e->applied_bps = target;
      e->setting_bps = bps;
      e->applied_count++;
      enc = gst_object_ref (e->encoder);
      kind = e->kind;
    }
  }
  if (e->match && pts != AMCC_TIME_NONE)
    amcc_encrate_on_frame (&e->rate, pts, size);
  g_mutex_unlock (&e->lock);
  /* the key frame is on its way out: the new setting governs the GOP it starts after */
  if (enc) {
    GST_DEBUG_OBJECT (enc, "key frame: bitrate target %u bit/s, setting %u", target, bps);
    gst_am_encoder_apply (enc, kind, bps);
    gst_object_unref (enc);
  }
  return GST_PAD_PROBE_OK;
}

gboolean
gst_am_encoder_attach (GstAmEncoder * e, GstElement * enc, guint initial_bps)
{
  GstAmEncKind kind = gst_am_encoder_kind (enc);
  gboolean intra_refresh;

  g_mutex_lock (&e->lock);
  intra_refresh = e->intra_refresh;
  detach_locked (e);
  if (enc) {
    e->encoder = gst_object_ref (enc);
    e->kind = kind;
    e->probe_pad = gst_element_get_static_pad (enc, "src");
    if (e->probe_pad)
      e->probe_id = gst_pad_add_probe (e->probe_pad,
          GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
          keyframe_probe, e, NULL);
    e->applied_bps = e->setting_bps = initial_bps;
    amcc_encrate_init (&e->rate);
    amcc_encrate_setting (&e->rate, AMCC_TIME_NONE, initial_bps);     /* in force, gain 1 */
  }
  g_mutex_unlock (&e->lock);
  /* x264enc reads intra-refresh when it opens, at its first caps: after our attach */
  if (enc && intra_refresh && kind == GST_AM_ENC_X264)
    g_object_set (enc, "intra-refresh", TRUE, NULL);
  if (enc && initial_bps)
    gst_am_encoder_apply (enc, kind, initial_bps);
  return !enc || !intra_refresh || kind == GST_AM_ENC_X264;
}

void
gst_am_encoder_attach_auto (GstAmEncoder * e, GstElement * explicit_enc, GstPad * sinkpad,
    guint initial_bps, GstObject * owner)
{
  GstElement *enc = explicit_enc ? gst_object_ref (explicit_enc)
      : gst_am_encoder_find_upstream (sinkpad);

  if (enc)
    GST_INFO_OBJECT (owner, "controlling encoder %" GST_PTR_FORMAT " (%s)", enc,
        gst_am_encoder_kind_name (gst_am_encoder_kind (enc)));
  else
    GST_INFO_OBJECT (owner, "no encoder upstream: targets go to the bus only");
  if (!gst_am_encoder_attach (e, enc, initial_bps))
    GST_ELEMENT_WARNING (GST_ELEMENT (owner), CORE, NOT_IMPLEMENTED,
        ("intra-refresh is for x264enc only"), ("%s has no intra refresh: it keeps its key frames",
            gst_am_encoder_kind_name (gst_am_encoder_kind (enc))));
  if (enc)
    gst_object_unref (enc);
}

void
gst_am_encoder_set_match (GstAmEncoder * e, gboolean match)
{
  g_mutex_lock (&e->lock);
  e->match = match;
  g_mutex_unlock (&e->lock);
}

void
gst_am_encoder_set_intra_refresh (GstAmEncoder * e, gboolean on)
{
  g_mutex_lock (&e->lock);
  e->intra_refresh = on;
  g_mutex_unlock (&e->lock);
}

void
gst_am_encoder_set_target (GstAmEncoder * e, guint bps)
{
  g_mutex_lock (&e->lock);
  if (e->encoder)
    e->pending_bps = bps == e->applied_bps ? 0 : bps;
  g_mutex_unlock (&e->lock);
}
