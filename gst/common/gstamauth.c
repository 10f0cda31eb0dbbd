/* gstamauth.c - HMAC-SHA-256 trailer with a replay window (see gstamauth.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstamauth.h"

#include <string.h>

#define KEY_BYTES 30                    /* srtp-key: AES-128 master key 16 + salt 14 */
#define LABEL_PREFIX "gst-amcast auth v1 "
#define WORDS (GST_AM_AUTH_WINDOW / 64)

typedef struct {
  guint32 id, top;                      /* top: the highest counter accepted */
  guint64 bits[WORDS];                  /* bit i: counter top - i was accepted */
  guint64 used;                         /* tick of the last packet accepted, 0 = free */
} Sender;

struct _GstAmAuth {
  GMutex lock;
  guint8 key[32];                       /* K_label */
  guint32 id, next;                     /* protecting: our id and next counter */
  Sender senders[GST_AM_AUTH_SENDERS];  /* checking */
  guint64 tick;
};

gboolean
gst_am_auth_parse_key (const gchar * prop, const gchar * hex, GBytes ** key, GError ** err)
{
  guint8 b[KEY_BYTES];
  gsize len, i;

  *key = NULL;
  if (!hex || !*hex)
    return TRUE;
  len = strlen (hex);
  if (len != 2 * KEY_BYTES) {
    g_set_error (err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "%s: want %d hex "
        "digits (the %d-byte master key and salt of AES-128-ICM + HMAC-SHA1-80), got %"
        G_GSIZE_FORMAT " characters", prop, 2 * KEY_BYTES, KEY_BYTES, len);
    return FALSE;
  }
  for (i = 0; i < len; i++) {
    if (!g_ascii_isxdigit (hex[i])) {
      /* the position only: the rest is a secret */
      g_set_error (err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "%s: character %"
          G_GSIZE_FORMAT " is not a hex digit", prop, i + 1);
      return FALSE;
    }
  }
  for (i = 0; i < KEY_BYTES; i++)
    b[i] = (g_ascii_xdigit_value (hex[2 * i]) << 4) | g_ascii_xdigit_value (hex[2 * i + 1]);
  *key = g_bytes_new (b, sizeof b);
  memset (b, 0, sizeof b);
  return TRUE;
}

GstAmAuth *
gst_am_auth_new (GBytes * key, const gchar * label)
{
  GstAmAuth *a = g_new0 (GstAmAuth, 1);
  gsize klen = 0;
  const guint8 *k = g_bytes_get_data (key, &klen);
  GHmac *h = g_hmac_new (G_CHECKSUM_SHA256, k, klen);
  gsize n = sizeof a->key;

  g_hmac_update (h, (const guchar *) LABEL_PREFIX, strlen (LABEL_PREFIX));
  g_hmac_update (h, (const guchar *) label, strlen (label));
  g_hmac_get_digest (h, a->key, &n);
  g_hmac_unref (h);
  g_mutex_init (&a->lock);
  a->id = g_random_int ();
  return a;
}

void
gst_am_auth_free (GstAmAuth * a)
{
  if (!a)
    return;
  g_mutex_clear (&a->lock);
  memset (a, 0, sizeof *a);
  g_free (a);
}

/* the tag of buf[0, len) (the packet, id and counter) */
static void
tag (const GstAmAuth * a, const guint8 * buf, gsize len, guint8 out[GST_AM_AUTH_TAG_BYTES])
{
  GHmac *h = g_hmac_new (G_CHECKSUM_SHA256, a->key, sizeof a->key);
  guint8 d[32];
  gsize n = sizeof d;

  g_hmac_update (h, buf, len);
  g_hmac_get_digest (h, d, &n);
  g_hmac_unref (h);
  memcpy (out, d, GST_AM_AUTH_TAG_BYTES);
}

gsize
gst_am_auth_protect (GstAmAuth * a, guint8 * buf, gsize len)
{
  g_mutex_lock (&a->lock);
  if (a->next == G_MAXUINT32) {         /* a new id rather than a counter seen before */
    a->id = g_random_int ();
    a->next = 0;
  }
  GST_WRITE_UINT32_BE (buf + len, a->id);
  GST_WRITE_UINT32_BE (buf + len + 4, a->next);
  a->next++;
  g_mutex_unlock (&a->lock);
  tag (a, buf, len + 8, buf + len + 8);
  return len + GST_AM_AUTH_TRAILER;
}

static gboolean
bit (const Sender * s, guint32 i)
{
  return (s->bits[i / 64] >> (i % 64)) & 1;
}

/* The window moves up by n: bit i becomes bit i + n. */
static void
shift (Sender * s, guint32 n)
{
  gint i;

  if (n >= GST_AM_AUTH_WINDOW) {
    memset (s->bits, 0, sizeof s->bits);
    return;
  }
  for (i = WORDS - 1; i >= 0; i--) {
    gint src = i - (gint) (n / 64);
    guint r = n % 64;
    guint64 w = src >= 0 ? s->bits[src] << r : 0;
    if (r && src > 0)
      w |= s->bits[src - 1] >> (64 - r);
    s->bits[i] = w;
  }
}

/* The sender's slot: its own, else a free one, else the least recently used (reset). */
static Sender *
sender (GstAmAuth * a, guint32 id, gboolean * fresh)
{
  Sender *lru = &a->senders[0];
  guint i;

  for (i = 0; i < GST_AM_AUTH_SENDERS; i++) {
    Sender *s = &a->senders[i];
    if (s->used && s->id == id) {
      *fresh = FALSE;
      return s;
    }
    if (s->used < lru->used)
      lru = s;
  }
  *fresh = TRUE;
  memset (lru, 0, sizeof *lru);
  lru->id = id;
  return lru;
}

/* Takes counter c of s once; FALSE for a replay. */
static gboolean
take (Sender * s, gboolean fresh, guint32 c)
{
  guint32 back;

  if (fresh || c > s->top) {
    shift (s, fresh ? GST_AM_AUTH_WINDOW : c - s->top);
    s->top = c;
    s->bits[0] |= 1;
    return TRUE;
  }
  back = s->top - c;
  if (back >= GST_AM_AUTH_WINDOW || bit (s, back))
    return FALSE;
  s->bits[back / 64] |= G_GUINT64_CONSTANT (1) << (back % 64);
  return TRUE;
}

GstAmAuthResult
gst_am_auth_check (GstAmAuth * a, const guint8 * buf, gsize len, gsize * plain_len)
{
  guint8 t[GST_AM_AUTH_TAG_BYTES], diff = 0;
  gsize body, i;
  gboolean fresh, ok;
  Sender *s;

  if (len < GST_AM_AUTH_TRAILER)
    return GST_AM_AUTH_SHORT;
  body = len - GST_AM_AUTH_TRAILER;
  tag (a, buf, body + 8, t);
  for (i = 0; i < GST_AM_AUTH_TAG_BYTES; i++)   /* in constant time */
    diff |= t[i] ^ buf[body + 8 + i];
  if (diff)
    return GST_AM_AUTH_BAD_TAG;
  g_mutex_lock (&a->lock);
  s = sender (a, GST_READ_UINT32_BE (buf + body), &fresh);
  ok = take (s, fresh, GST_READ_UINT32_BE (buf + body + 4));
  if (ok)
    s->used = ++a->tick;
  g_mutex_unlock (&a->lock);
  if (!ok)
    return GST_AM_AUTH_REPLAY;
  *plain_len = body;
  return GST_AM_AUTH_OK;
}

GstBuffer *
gst_am_auth_protect_buffer (GstAmAuth * a, GstBuffer * buf)
{
  gsize len = gst_buffer_get_size (buf);
  GstMapInfo m;

  buf = gst_buffer_make_writable (buf);
  gst_buffer_append_memory (buf, gst_allocator_alloc (NULL, GST_AM_AUTH_TRAILER, NULL));
  if (gst_buffer_map (buf, &m, GST_MAP_READWRITE)) {
    gst_am_auth_protect (a, m.data, len);
    gst_buffer_unmap (buf, &m);
  }
  return buf;
}

GstBuffer *
gst_am_auth_check_buffer (GstAmAuth * a, GstBuffer * buf, GstAmAuthResult * res)
{
  GstMapInfo m;
  gsize plain = 0;

  if (!gst_buffer_map (buf, &m, GST_MAP_READ)) {
    *res = GST_AM_AUTH_SHORT;
    return NULL;
  }
  *res = gst_am_auth_check (a, m.data, m.size, &plain);
  gst_buffer_unmap (buf, &m);
  if (*res != GST_AM_AUTH_OK)
    return NULL;
  return gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, 0, plain);
}
