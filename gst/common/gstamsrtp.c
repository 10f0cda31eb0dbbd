/* gstamsrtp.c - SRTP/SRTCP with a group key through rtpbin's encoder/decoder hooks (see
 * gstamsrtp.h for the layout, the key and what is counted). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamsrtp.h"

#include <gst/base/gstbasetransform.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <string.h>
#include "gstamauth.h"
#include "gstamnet.h"

GST_DEBUG_CATEGORY_STATIC (amsrtp_debug);
#define GST_CAT_DEFAULT amsrtp_debug

enum { RTP, RTCP };

/* ---- rename: srtpenc/srtpdec's application/x-srtp(c) <-> the x-rtp(cp) around them ----
 * A pass-through GstBaseTransform whose caps are those of its input with the media type
 * renamed `from` -> `to` (downstream; upstream it accepts both), and, with strip, without
 * the srtp-* fields srtpenc puts in its output caps (the key among them). */
typedef struct {
  GstBaseTransform parent;
  const gchar *from, *to;
  gboolean strip;
} GstAmSrtpRename;
typedef struct {
  GstBaseTransformClass parent_class;
} GstAmSrtpRenameClass;


static GstStaticPadTemplate rename_sink = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK,
    GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate rename_src = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC,
    GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static const gchar *const srtp_fields[] = { "srtp-key", "srtp-cipher", "srtp-auth",
  "srtcp-cipher", "srtcp-auth", "mki", "roc", NULL
};

static GstCaps *
rename_caps (GstCaps * caps, const gchar * from, const gchar * to, gboolean keep,
    gboolean strip)
{
  GstCaps *out = gst_caps_new_empty ();
  guint i, k;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *st = gst_structure_copy (gst_caps_get_structure (caps, i));
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (gst_structure_has_name (st, from)) {
      if (keep)
        gst_caps_append_structure_full (out, gst_structure_copy (st),
            f ? gst_caps_features_copy (f) : NULL);
      gst_structure_set_name (st, to);
    }
    for (k = 0; strip && srtp_fields[k]; k++)
      gst_structure_remove_field (st, srtp_fields[k]);
    gst_caps_append_structure_full (out, st, f ? gst_caps_features_copy (f) : NULL);
  }
  return out;
}

static GstCaps *
rename_transform_caps (GstBaseTransform * trans, GstPadDirection dir, GstCaps * caps,
    GstCaps * filter)
{
  GstAmSrtpRename *r = (GstAmSrtpRename *) trans;
  GstCaps *ret;

  if (gst_caps_is_any (caps))
    ret = gst_caps_new_any ();
  else if (dir == GST_PAD_SINK)
    ret = rename_caps (caps, r->from, r->to, FALSE, r->strip);
  else                          /* what upstream may send: the renamed form or the original */
    ret = rename_caps (caps, r->to, r->from, TRUE, FALSE);
  if (filter) {
    GstCaps *t = gst_caps_intersect_full (filter, ret, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = t;
  }
  return ret;
}

static void
gst_am_srtp_rename_init (GTypeInstance * instance, gpointer klass)
{
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (instance), TRUE);
}

static void
gst_am_srtp_rename_class_init (gpointer klass, gpointer data)
{
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);

  GST_BASE_TRANSFORM_CLASS (klass)->transform_caps = rename_transform_caps;
  gst_element_class_add_static_pad_template (ec, &rename_sink);
  gst_element_class_add_static_pad_template (ec, &rename_src);
  gst_element_class_set_static_metadata (ec, "SRTP caps rename", "Filter/Network/SRTP",
      "Renames application/x-srtp(c) caps to and from x-rtp(cp) (gst-amcast internal)",
      "gst-amcast <gst-amcast@localhost>");
}

/* This file is in the plugin and, as a static library, in the element tests, which load the
 * plugin too: the second copy takes the type the first registered (the same code and layout) */
static GType
gst_am_srtp_rename_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_type_from_name ("GstAmSrtpRename");
    if (!t)
      t = g_type_register_static_simple (GST_TYPE_BASE_TRANSFORM,
          g_intern_static_string ("GstAmSrtpRename"), sizeof (GstAmSrtpRenameClass),
          gst_am_srtp_rename_class_init, sizeof (GstAmSrtpRename), gst_am_srtp_rename_init, 0);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GstElement *
make_rename (const gchar * name, const gchar * from, const gchar * to, gboolean strip)
{
  GstAmSrtpRename *r = g_object_new (gst_am_srtp_rename_get_type (), "name", name, NULL);

  r->from = from;
  r->to = to;
  r->strip = strip;
  return GST_ELEMENT (r);
}

/* ---- slots ---- */
typedef struct {
  gboolean proven;              /* a packet of it passed authentication */
  gboolean rtp_ok;              /* an RTP packet of it did: its ROC is right */
  gboolean keyed;               /* srtpdec holds a stream for it (as far as we know) */
  gboolean has_hint;
  guint32 hint;                 /* ROC of its last RTP packet (its extended seq >> 16) */
  guint32 keyed_roc;
  gint64 last;
} Member;

typedef struct {
  GstAmSrtp *s;
  gboolean enc;
  guint index;
  GstElement *bin;              /* ref'd */
  GstElement *tap[2];           /* identity: the plain side */
  GstPad *ghost_sink[2], *ghost_src[2];
  GstElement *core, *ren[2];    /* srtpenc / srtpdec and the renames, when keyed */
  gboolean keyed;
  /* decoder (s->lock) */
  guint64 in[2], out[2];
  GHashTable *members;          /* ssrc -> Member */
  guint unproven;
  gboolean hint_valid;
  guint32 hint_ssrc, hint_roc;  /* the last RTP packet's */
  gboolean clear_pending;
  gint64 last_clear;
  /* encoder (s->lock): gst_am_srtp_protect_rtcp's capture */
  gboolean capture;
  GstBuffer *captured;
} Slot;

struct _GstAmSrtp {
  GMutex lock;
  GstElement *owner;            /* not ref'd: we are part of it */
  gchar *key_hex;
  GBytes *key;                  /* NULL: off */
  GstCaps *key_caps;            /* what request-key answers (without roc) */
  GPtrArray *slots;
  guint64 refused, clears;
};

static void
init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (amsrtp_debug, "amsrtp", 0, "gst-amcast SRTP plumbing");
    g_once_init_leave (&once, 1);
  }
}

static guint32
read_ssrc (GstBuffer * buf, gboolean rtcp)
{
  guint8 b[4];

  if (gst_buffer_extract (buf, rtcp ? 4 : 8, b, 4) != 4)
    return 0;
  return gst_am_be32 (b);
}

static void
forget_unproven_locked (Slot * sl, gint64 now)
{
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, sl->members);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Member *m = v;
    if (!m->proven || now - m->last > GST_AM_SRTP_STALE_NS)
      g_hash_table_iter_remove (&it);
    else
      m->keyed = FALSE;         /* clear-keys drops every stream: keyed again at its next packet */
  }
  sl->unproven = 0;
}

static void
count_in (Slot * sl, guint path, GstBuffer * buf, gint64 now, gboolean * clear)
{
  GstAmSrtp *s = sl->s;
  gboolean mismatch = FALSE;

  sl->in[path]++;
  if (!sl->keyed)
    return;
  if (path == RTP) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint32 ssrc = read_ssrc (buf, FALSE);
    Member *m = g_hash_table_lookup (sl->members, GUINT_TO_POINTER (ssrc));
    gpointer data;
    guint size;

    sl->hint_valid = FALSE;
    /* the ROC matters until an RTP packet of the SSRC has passed: then libsrtp follows it */
    if ((!m || !m->rtp_ok) && gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp)) {
      if (gst_rtp_buffer_get_ssrc (&rtp) == ssrc && gst_rtp_buffer_get_extension_onebyte_header
          (&rtp, GST_AM_EXT_ID_EXTSEQ, 0, &data, &size) && size == 4) {
        sl->hint_valid = TRUE;
        sl->hint_ssrc = ssrc;
        sl->hint_roc = gst_am_be32 (data) >> 16;
        if (m) {
          m->has_hint = TRUE;
          m->hint = sl->hint_roc;
          /* keyed before its RTP said its ROC (its SR came first) and wrong: key it again */
          mismatch = m->keyed && m->keyed_roc != m->hint;
        }
      }
      gst_rtp_buffer_unmap (&rtp);
    }
  }
  if ((sl->clear_pending || mismatch) && now - sl->last_clear >= GST_AM_SRTP_CLEAR_GAP_NS) {
    GST_INFO_OBJECT (s->owner, "clearing srtpdec's keys (%s)", mismatch ? "a ROC to correct"
        : "too many SSRCs without an authentic packet");
    sl->last_clear = now;
    sl->clear_pending = FALSE;
    forget_unproven_locked (sl, now);
    s->clears++;
    *clear = TRUE;
  }
}

static void
count_out (Slot * sl, guint path, GstBuffer * buf, gint64 now)
{
  Member *m;

  sl->out[path]++;
  if (!sl->keyed)
    return;
  m = g_hash_table_lookup (sl->members, GUINT_TO_POINTER (read_ssrc (buf, path == RTCP)));
  if (!m)
    return;
  if (!m->proven) {
    m->proven = TRUE;
    sl->unproven--;
  }
  m->rtp_ok |= path == RTP;
  m->last = now;
}

/* What enters the decoder slot (before srtpdec) and what leaves it (after) */
static GstPadProbeReturn
dec_probe (GstPad * pad, GstPadProbeInfo * info, Slot * sl, guint path, gboolean in)
{
  GstAmSrtp *s = sl->s;
  gint64 now = gst_am_now ();
  gboolean clear = FALSE;
  GstElement *core = NULL;

  g_mutex_lock (&s->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = GST_PAD_PROBE_INFO_BUFFER_LIST (info);
    guint i;
    for (i = 0; i < gst_buffer_list_length (l); i++) {
      if (in)
        count_in (sl, path, gst_buffer_list_get (l, i), now, &clear);
      else
        count_out (sl, path, gst_buffer_list_get (l, i), now);
    }
  } else if (in) {
    count_in (sl, path, GST_PAD_PROBE_INFO_BUFFER (info), now, &clear);
  } else {
    count_out (sl, path, GST_PAD_PROBE_INFO_BUFFER (info), now);
  }
  if (clear && sl->core)
    core = gst_object_ref (sl->core);
  g_mutex_unlock (&s->lock);
  /* not under our lock: srtpdec takes its own, and calls request-key (ours) under it */
  if (core) {
    g_signal_emit_by_name (core, "clear-keys");
    gst_object_unref (core);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
rtp_in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer sl)
{
  return dec_probe (pad, info, sl, RTP, TRUE);
}

static GstPadProbeReturn
rtcp_in_probe (GstPad * pad, GstPadProbeInfo * info, gpointer sl)
{
  return dec_probe (pad, info, sl, RTCP, TRUE);
}

static GstPadProbeReturn
rtp_out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer sl)
{
  return dec_probe (pad, info, sl, RTP, FALSE);
}

static GstPadProbeReturn
rtcp_out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer sl)
{
  return dec_probe (pad, info, sl, RTCP, FALSE);
}

/* srtpdec asks for the parameters of an SSRC it has no stream for (its streaming thread,
 * srtpdec's object lock held) */
static GstCaps *
on_request_key (GstElement * dec, guint ssrc, gpointer user_data)
{
  Slot *sl = user_data;
  GstAmSrtp *s = sl->s;
  GstCaps *caps = NULL;
  Member *m;
  guint32 roc = 0;

  g_mutex_lock (&s->lock);
  if (!s->key_caps)
    goto out;
  m = g_hash_table_lookup (sl->members, GUINT_TO_POINTER (ssrc));
  if (!m) {
    if (sl->unproven >= GST_AM_SRTP_MAX_UNPROVEN
        || g_hash_table_size (sl->members) >= GST_AM_SRTP_MAX_KEYED) {
      s->refused++;
      sl->clear_pending = TRUE;
      GST_LOG_OBJECT (s->owner, "SSRC %08x refused: %u without an authentic packet, %u keyed",
          ssrc, sl->unproven, g_hash_table_size (sl->members));
      goto out;
    }
    m = g_new0 (Member, 1);
    m->last = gst_am_now ();
    g_hash_table_insert (sl->members, GUINT_TO_POINTER (ssrc), m);
    sl->unproven++;
  }
  if (m->has_hint)
    roc = m->hint;
  else if (sl->hint_valid && sl->hint_ssrc == ssrc)
    roc = sl->hint_roc;
  m->keyed = TRUE;
  m->keyed_roc = roc;
  caps = gst_caps_copy (s->key_caps);
  gst_caps_set_simple (caps, "roc", G_TYPE_UINT, roc, NULL);
  GST_DEBUG_OBJECT (s->owner, "keyed SSRC %08x (ROC %u)", ssrc, roc);
out:
  g_mutex_unlock (&s->lock);
  return caps;
}

/* protect_rtcp: take the encoder's output instead of letting it go downstream */
static GstPadProbeReturn
capture_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Slot *sl = user_data;
  gboolean take = FALSE;

  g_mutex_lock (&sl->s->lock);
  if (sl->capture && !sl->captured && (info->type & GST_PAD_PROBE_TYPE_BUFFER)) {
    sl->captured = gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info));
    take = TRUE;
  }
  g_mutex_unlock (&sl->s->lock);
  return take ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

static gchar *
pad_name (Slot * sl, const gchar * what)
{
  return sl->enc ? g_strdup_printf ("%s_%u", what, sl->index) : g_strdup (what);
}

static gboolean
link (GstElement * a, const gchar * pa, GstElement * b, const gchar * pb)
{
  GstPad *x = gst_element_get_static_pad (a, pa), *y = gst_element_get_static_pad (b, pb);
  gboolean ok = x && y && gst_pad_link (x, y) == GST_PAD_LINK_OK;

  gst_clear_object (&x);
  gst_clear_object (&y);
  return ok;
}

static void
target (GstPad * ghost, GstElement * e, const gchar * name)
{
  GstPad *p = e ? gst_element_get_static_pad (e, name) : NULL;

  gst_ghost_pad_set_target (GST_GHOST_PAD (ghost), p);
  gst_clear_object (&p);
}

static void
slot_teardown (Slot * sl)
{
  GstElement *e[3] = { sl->core, sl->ren[RTP], sl->ren[RTCP] };
  guint i, p;

  for (p = RTP; p <= RTCP; p++)
    target (sl->enc ? sl->ghost_src[p] : sl->ghost_sink[p], NULL, NULL);
  for (i = 0; i < 3; i++) {
    if (!e[i])
      continue;
    gst_element_set_state (e[i], GST_STATE_NULL);
    gst_bin_remove (GST_BIN (sl->bin), e[i]);
  }
  sl->core = sl->ren[RTP] = sl->ren[RTCP] = NULL;
  sl->keyed = FALSE;
}

/* Builds the slot's inside for `key` (NULL: pass-through). Its bin is in NULL. */
static gboolean
slot_build (Slot * sl, GBytes * key)
{
  static const gchar *what[2] = { "rtp", "rtcp" };
  static const gchar *plain[2] = { "application/x-rtp", "application/x-rtcp" };
  static const gchar *sec[2] = { "application/x-srtp", "application/x-srtcp" };
  GstAmSrtp *s = sl->s;
  gboolean ok = TRUE;
  guint p;

  slot_teardown (sl);
  if (!key) {
    for (p = RTP; p <= RTCP; p++) {
      if (sl->enc)
        target (sl->ghost_src[p], sl->tap[p], "src");
      else
        target (sl->ghost_sink[p], sl->tap[p], "sink");
    }
    return TRUE;
  }
  sl->core = gst_element_factory_make (sl->enc ? "srtpenc" : "srtpdec", NULL);
  if (!sl->core) {
    GST_ELEMENT_ERROR (s->owner, CORE, MISSING_PLUGIN, ("srtp-key is set but element '%s' "
            "is missing (install gstreamer1.0-plugins-bad)", sl->enc ? "srtpenc" : "srtpdec"),
        (NULL));
    return FALSE;
  }
  gst_bin_add (GST_BIN (sl->bin), sl->core);
  if (sl->enc) {
    GstBuffer *kb = gst_buffer_new_wrapped_bytes (key);
    /* RFC 3711's default transform, what srtp-key describes (and srtpenc's defaults) */
    gst_util_set_object_arg (G_OBJECT (sl->core), "rtp-cipher", "aes-128-icm");
    gst_util_set_object_arg (G_OBJECT (sl->core), "rtp-auth", "hmac-sha1-80");
    gst_util_set_object_arg (G_OBJECT (sl->core), "rtcp-cipher", "aes-128-icm");
    gst_util_set_object_arg (G_OBJECT (sl->core), "rtcp-auth", "hmac-sha1-80");
    g_object_set (sl->core, "key", kb, NULL);
    gst_buffer_unref (kb);
  } else {
    g_object_set (sl->core, "replay-window-size", GST_AM_SRTP_REPLAY_WINDOW, NULL);
    g_signal_connect (sl->core, "request-key", G_CALLBACK (on_request_key), sl);
  }
  for (p = RTP; p <= RTCP; p++) {
    gchar *rn = g_strdup_printf ("%s_rename", what[p]);
    gchar *sink = pad_name (sl, p == RTP ? "rtp_sink" : "rtcp_sink");
    gchar *src = pad_name (sl, p == RTP ? "rtp_src" : "rtcp_src");

    sl->ren[p] = make_rename (rn, sl->enc ? sec[p] : plain[p], sl->enc ? plain[p] : sec[p],
        sl->enc);
    gst_bin_add (GST_BIN (sl->bin), sl->ren[p]);
    if (sl->enc) {
      GstPad *req = gst_element_request_pad_simple (sl->core, sink);    /* makes src too */
      ok &= req && link (sl->tap[p], "src", sl->core, sink)
          && link (sl->core, src, sl->ren[p], "sink");
      gst_clear_object (&req);
      target (sl->ghost_src[p], sl->ren[p], "src");
      if (p == RTCP) {
        GstPad *cp = gst_element_get_static_pad (sl->core, src);
        if (cp) {
          gst_pad_add_probe (cp, GST_PAD_PROBE_TYPE_BUFFER, capture_probe, sl, NULL);
          gst_object_unref (cp);
        }
      }
    } else {
      ok &= link (sl->ren[p], "src", sl->core, sink) && link (sl->core, src, sl->tap[p], "sink");
      target (sl->ghost_sink[p], sl->ren[p], "sink");
    }
    g_free (rn);
    g_free (sink);
    g_free (src);
  }
  if (!ok) {
    GST_ELEMENT_ERROR (s->owner, CORE, NEGOTIATION, (NULL), ("could not link %s inside %s",
            sl->enc ? "srtpenc" : "srtpdec", GST_OBJECT_NAME (sl->bin)));
    return FALSE;
  }
  sl->keyed = TRUE;
  return TRUE;
}

static Slot *
slot_new (GstAmSrtp * s, gboolean enc, guint index)
{
  static const gchar *what[2] = { "rtp", "rtcp" };
  Slot *sl = g_new0 (Slot, 1);
  gchar *name = g_strdup_printf ("srtp_%s_%u", enc ? "enc" : "dec", index);
  guint p;

  sl->s = s;
  sl->enc = enc;
  sl->index = index;
  sl->members = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  sl->bin = gst_object_ref_sink (gst_bin_new (name));
  g_free (name);
  for (p = RTP; p <= RTCP; p++) {
    /* unique in the element: rtp_out_plain, rtcp_out_plain, rtp_in_plain, rtcp_in_plain */
    gchar *tn = g_strdup_printf ("%s_%s_plain", what[p], enc ? "out" : "in");
    gchar *sink = pad_name (sl, p == RTP ? "rtp_sink" : "rtcp_sink");
    gchar *src = pad_name (sl, p == RTP ? "rtp_src" : "rtcp_src");
    GstPad *tp;

    sl->tap[p] = gst_element_factory_make ("identity", tn);
    gst_bin_add (GST_BIN (sl->bin), sl->tap[p]);
    sl->ghost_sink[p] = gst_ghost_pad_new_no_target (sink, GST_PAD_SINK);
    sl->ghost_src[p] = gst_ghost_pad_new_no_target (src, GST_PAD_SRC);
    gst_element_add_pad (sl->bin, sl->ghost_sink[p]);
    gst_element_add_pad (sl->bin, sl->ghost_src[p]);
    if (enc) {
      target (sl->ghost_sink[p], sl->tap[p], "sink");
    } else {
      target (sl->ghost_src[p], sl->tap[p], "src");
      gst_pad_add_probe (sl->ghost_sink[p], GST_PAD_PROBE_TYPE_BUFFER |
          GST_PAD_PROBE_TYPE_BUFFER_LIST, p == RTP ? rtp_in_probe : rtcp_in_probe, sl, NULL);
      tp = gst_element_get_static_pad (sl->tap[p], "src");
      gst_pad_add_probe (tp, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
          p == RTP ? rtp_out_probe : rtcp_out_probe, sl, NULL);
      gst_object_unref (tp);
    }
    g_free (tn);
    g_free (sink);
    g_free (src);
  }
  return sl;
}

static void
slot_free (Slot * sl)
{
  gst_clear_buffer (&sl->captured);
  g_hash_table_destroy (sl->members);
  gst_object_unref (sl->bin);
  g_free (sl);
}

static Slot *
find_slot_locked (GstAmSrtp * s, gboolean enc, guint index)
{
  guint i;

  for (i = 0; i < s->slots->len; i++) {
    Slot *sl = g_ptr_array_index (s->slots, i);
    if (sl->enc == enc && sl->index == index)
      return sl;
  }
  return NULL;
}

/* The slot for (enc, index), made (for the current key) the first time: a new ref of its bin */
static GstElement *
get_slot (GstAmSrtp * s, gboolean enc, guint index)
{
  Slot *sl;
  GBytes *key;

  g_mutex_lock (&s->lock);
  sl = find_slot_locked (s, enc, index);
  if (sl) {
    g_mutex_unlock (&s->lock);
    return gst_object_ref (sl->bin);
  }
  key = s->key ? g_bytes_ref (s->key) : NULL;
  g_mutex_unlock (&s->lock);
  sl = slot_new (s, enc, index);
  slot_build (sl, key);
  if (key)
    g_bytes_unref (key);
  g_mutex_lock (&s->lock);
  g_ptr_array_add (s->slots, sl);
  g_mutex_unlock (&s->lock);
  return gst_object_ref (sl->bin);
}

static GstElement *
on_request_encoder (GstElement * rtpbin, guint session, gpointer s)
{
  return get_slot (s, TRUE, session);
}

static GstElement *
on_request_decoder (GstElement * rtpbin, guint session, gpointer s)
{
  return get_slot (s, FALSE, session);
}

/* ---- the API ---- */
GstAmSrtp *
gst_am_srtp_new (GstElement * owner, GstElement * rtpbin)
{
  GstAmSrtp *s = g_new0 (GstAmSrtp, 1);

  init_debug ();
  g_mutex_init (&s->lock);
  s->owner = owner;
  s->slots = g_ptr_array_new_with_free_func ((GDestroyNotify) slot_free);
  if (rtpbin) {
    g_signal_connect (rtpbin, "request-rtp-encoder", G_CALLBACK (on_request_encoder), s);
    g_signal_connect (rtpbin, "request-rtcp-encoder", G_CALLBACK (on_request_encoder), s);
    g_signal_connect (rtpbin, "request-rtp-decoder", G_CALLBACK (on_request_decoder), s);
    g_signal_connect (rtpbin, "request-rtcp-decoder", G_CALLBACK (on_request_decoder), s);
  }
  return s;
}

void
gst_am_srtp_free (GstAmSrtp * s)
{
  guint i;

  if (!s)
    return;
  /* the slots' elements may outlive us inside rtpbin: no callback of theirs may reach us */
  for (i = 0; i < s->slots->len; i++) {
    Slot *sl = g_ptr_array_index (s->slots, i);
    if (sl->core && !sl->enc)
      g_signal_handlers_disconnect_by_data (sl->core, sl);
  }
  g_ptr_array_free (s->slots, TRUE);
  g_free (s->key_hex);
  if (s->key)
    g_bytes_unref (s->key);
  gst_clear_caps (&s->key_caps);
  g_mutex_clear (&s->lock);
  g_free (s);
}

void
gst_am_srtp_install_property (GObjectClass * klass, guint prop_id)
{
  g_object_class_install_property (klass, prop_id, g_param_spec_string ("srtp-key", "SRTP key",
          "SRTP/SRTCP group key: the 30-byte master key and salt of AES-128-ICM + HMAC-SHA1-80 "
          "(RFC 3711) as 60 hex digits, srtpenc's key; every member of the group sets the same. "
          "RTP and RTCP are then encrypted and authenticated; packets that fail authentication "
          "(forged, replayed, another key) are dropped and counted (srtp-rtp-rejected, "
          "srtp-rtcp-rejected in the stats); with FEC the parity carries an HMAC tag under the "
          "same key (srtp-fec-rejected). A group key keeps out who does not hold it, not a "
          "member forging another (docs/security.md). Empty: off. Write-only; read at NULL -> "
          "READY, where a malformed key is an error", NULL,
          G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
}

gboolean
gst_am_srtp_set_property (GstAmSrtp * s, GParamSpec * pspec, const GValue * value)
{
  if (strcmp (g_param_spec_get_name (pspec), "srtp-key"))
    return FALSE;
  g_mutex_lock (&s->lock);
  g_free (s->key_hex);
  s->key_hex = g_value_dup_string (value);
  g_mutex_unlock (&s->lock);
  return TRUE;
}

gboolean
gst_am_srtp_parse_key (const gchar * hex, GBytes ** key, GError ** err)
{
  return gst_am_auth_parse_key ("srtp-key", hex, key, err);
}

gboolean
gst_am_srtp_check_key (GstElement * owner, const gchar * hex)
{
  GError *err = NULL;
  GBytes *key = NULL;

  if (!gst_am_srtp_parse_key (hex, &key, &err)) {
    GST_ELEMENT_ERROR (owner, LIBRARY, SETTINGS, ("%s", err->message), (NULL));
    g_clear_error (&err);
    return FALSE;
  }
  if (key)
    g_bytes_unref (key);
  return TRUE;
}

gboolean
gst_am_srtp_start (GstAmSrtp * s)
{
  GError *err = NULL;
  GBytes *key = NULL;
  GPtrArray *slots;
  gchar *hex;
  gboolean ok = TRUE;
  guint i;

  g_mutex_lock (&s->lock);
  hex = g_strdup (s->key_hex);
  g_mutex_unlock (&s->lock);
  ok = gst_am_srtp_parse_key (hex, &key, &err);
  g_free (hex);
  if (!ok) {
    GST_ELEMENT_ERROR (s->owner, LIBRARY, SETTINGS, ("%s", err->message), (NULL));
    g_clear_error (&err);
    return FALSE;
  }
  g_mutex_lock (&s->lock);
  if (s->key)
    g_bytes_unref (s->key);
  s->key = key;
  gst_clear_caps (&s->key_caps);
  if (key) {
    GstBuffer *kb = gst_buffer_new_wrapped_bytes (key);
    s->key_caps = gst_caps_new_simple ("application/x-srtp", "srtp-key", GST_TYPE_BUFFER, kb,
        "srtp-cipher", G_TYPE_STRING, "aes-128-icm", "srtp-auth", G_TYPE_STRING,
        "hmac-sha1-80", "srtcp-cipher", G_TYPE_STRING, "aes-128-icm", "srtcp-auth",
        G_TYPE_STRING, "hmac-sha1-80", NULL);
    gst_buffer_unref (kb);
  }
  s->refused = s->clears = 0;
  slots = g_ptr_array_new ();
  for (i = 0; i < s->slots->len; i++) {
    Slot *sl = g_ptr_array_index (s->slots, i);
    sl->in[RTP] = sl->in[RTCP] = sl->out[RTP] = sl->out[RTCP] = 0;
    g_hash_table_remove_all (sl->members);
    sl->unproven = 0;
    sl->hint_valid = sl->clear_pending = FALSE;
    sl->last_clear = G_MININT64 / 2;
    g_ptr_array_add (slots, sl);
  }
  g_mutex_unlock (&s->lock);
  /* every slot anew: a new key, and srtpenc's ROC restarts with the sender's extended seq */
  for (i = 0; ok && i < slots->len; i++)
    ok = slot_build (g_ptr_array_index (slots, i), key);
  g_ptr_array_free (slots, TRUE);
  GST_INFO_OBJECT (s->owner, "SRTP %s", key ? "on (group key)" : "off");
  return ok;
}

gboolean
gst_am_srtp_enabled (GstAmSrtp * s)
{
  gboolean on;

  g_mutex_lock (&s->lock);
  on = s->key != NULL;
  g_mutex_unlock (&s->lock);
  return on;
}

GBytes *
gst_am_srtp_get_key (GstAmSrtp * s)
{
  GBytes *k;

  g_mutex_lock (&s->lock);
  k = s->key ? g_bytes_ref (s->key) : NULL;
  g_mutex_unlock (&s->lock);
  return k;
}

GstPad *
gst_am_srtp_plain_pad (GstAmSrtp * s, guint index, GstAmSrtpPoint point)
{
  gboolean enc = point == GST_AM_SRTP_RTP_SEND || point == GST_AM_SRTP_RTCP_SEND;
  guint path = (point == GST_AM_SRTP_RTP_SEND || point == GST_AM_SRTP_RTP_RECV) ? RTP : RTCP;
  GstPad *pad = NULL;
  Slot *sl;

  g_mutex_lock (&s->lock);
  sl = find_slot_locked (s, enc, index);
  if (sl)
    pad = gst_element_get_static_pad (sl->tap[path], "src");
  g_mutex_unlock (&s->lock);
  return pad;
}

gboolean
gst_am_srtp_add_probe (GstAmSrtp * s, guint index, GstAmSrtpPoint point, GstPadProbeType mask,
    GstPadProbeCallback cb, gpointer data)
{
  GstPad *pad = gst_am_srtp_plain_pad (s, index, point);

  g_return_val_if_fail (pad != NULL, FALSE);
  gst_pad_add_probe (pad, mask, cb, data, NULL);
  gst_object_unref (pad);
  return TRUE;
}

GstElement *
gst_am_srtp_decoder (GstAmSrtp * s, guint index)
{
  return get_slot (s, FALSE, index);
}

GstElement *
gst_am_srtp_encoder (GstAmSrtp * s, guint index)
{
  return get_slot (s, TRUE, index);
}

GstBuffer *
gst_am_srtp_protect_rtcp (gpointer data, GstBuffer * rtcp)
{
  GstAmSrtp *s = data;
  GstBuffer *out = NULL;
  GstPad *pad = NULL;
  GstFlowReturn ret;
  Slot *sl;

  g_mutex_lock (&s->lock);
  sl = find_slot_locked (s, TRUE, 0);
  if (sl && sl->keyed) {
    gchar *name = pad_name (sl, "rtcp_sink");
    pad = gst_element_get_static_pad (sl->core, name);
    g_free (name);
  }
  g_mutex_unlock (&s->lock);
  if (!sl || !sl->keyed)
    return gst_buffer_ref (rtcp);
  if (!pad)
    return NULL;
  /* the sink pad's stream lock: no RTCP of rtpsession's goes through meanwhile, so what comes
   * out while we hold it is ours */
  GST_PAD_STREAM_LOCK (pad);
  g_mutex_lock (&s->lock);
  sl->capture = TRUE;
  g_mutex_unlock (&s->lock);
  ret = gst_pad_chain (pad, gst_buffer_ref (rtcp));
  g_mutex_lock (&s->lock);
  out = sl->captured;
  sl->captured = NULL;
  sl->capture = FALSE;
  g_mutex_unlock (&s->lock);
  GST_PAD_STREAM_UNLOCK (pad);
  gst_object_unref (pad);
  if (!out)
    GST_WARNING_OBJECT (s->owner, "srtpenc did not protect our RTCP (%s)",
        gst_flow_get_name (ret));
  return out;
}

void
gst_am_srtp_forget (GstAmSrtp * s, guint index)
{
  GstElement *core = NULL;
  Slot *sl;

  g_mutex_lock (&s->lock);
  sl = find_slot_locked (s, FALSE, index);
  if (sl && sl->keyed) {
    g_hash_table_remove_all (sl->members);
    sl->unproven = 0;
    sl->hint_valid = sl->clear_pending = FALSE;
    core = gst_object_ref (sl->core);
  }
  g_mutex_unlock (&s->lock);
  if (core) {
    g_signal_emit_by_name (core, "clear-keys");
    gst_object_unref (core);
  }
}

void
gst_am_srtp_add_stats (GstAmSrtp * s, GstStructure * st)
{
  guint64 rej[2] = { 0, 0 };
  guint ssrcs = 0, i;
  gboolean on;

  g_mutex_lock (&s->lock);
  on = s->key != NULL;
  for (i = 0; i < s->slots->len; i++) {
    Slot *sl = g_ptr_array_index (s->slots, i);
    guint64 in, out, all, rtp;
    if (sl->enc)
      continue;
    /* what srtpdec dropped; a packet it takes in on one pad and lets out on the other (an RTP
     * payload type of 64-80 reads as RTCP) counts once in the total */
    in = sl->in[RTP] + sl->in[RTCP];
    out = sl->out[RTP] + sl->out[RTCP];
    all = in > out ? in - out : 0;
    rtp = MIN (all, sl->in[RTP] > sl->out[RTP] ? sl->in[RTP] - sl->out[RTP] : 0);
    rej[RTP] += rtp;
    rej[RTCP] += all - rtp;
    ssrcs += g_hash_table_size (sl->members);
  }
  gst_structure_set (st, "srtp", G_TYPE_BOOLEAN, on,
      "srtp-rtp-rejected", G_TYPE_UINT64, rej[RTP],
      "srtp-rtcp-rejected", G_TYPE_UINT64, rej[RTCP],
      "srtp-ssrcs", G_TYPE_UINT, ssrcs,
      "srtp-refused", G_TYPE_UINT64, s->refused, "srtp-clears", G_TYPE_UINT64, s->clears, NULL);
  g_mutex_unlock (&s->lock);
}
