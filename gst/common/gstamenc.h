/* gstamenc.h - applies the congestion controller's target to the upstream video encoder, once
 * per GOP: the target waits until the encoder outputs its next key frame. */
#ifndef GST_AM_ENC_H
#define GST_AM_ENC_H
#include <gst/gst.h>
#include <amcc/encrate.h>

G_BEGIN_DECLS

typedef enum {
  GST_AM_ENC_NONE,        /* no encoder found */
  GST_AM_ENC_X264,        /* x264enc "bitrate", kbit/s */
  GST_AM_ENC_VP8,         /* vp8enc "target-bitrate", bit/s */
  GST_AM_ENC_OPENH264,    /* openh264enc "bitrate", bit/s */
  GST_AM_ENC_OTHER        /* unknown encoder: the app applies the target (bus message) */
} GstAmEncKind;

typedef struct {
  GMutex lock;
  GstElement *encoder;    /* ref */
  GstAmEncKind kind;
  GstPad *probe_pad;      /* encoder src pad carrying our probe */
  gulong probe_id;
  guint pending_bps;      /* 0 = nothing pending */
  guint applied_bps;      /* the target in force */
  guint setting_bps;      /* what the encoder was told (the target x the rate-matching gain) */
  guint64 applied_count;  /* times a setting was applied */
  gboolean match;         /* rate matching on (amcc/encrate.h) */
  gboolean intra_refresh; /* set x264enc intra-refresh=true when attaching */
  amcc_encrate rate;
} GstAmEncoder;

void gst_am_encoder_init (GstAmEncoder * e);
void gst_am_encoder_clear (GstAmEncoder * e);
GstAmEncKind gst_am_encoder_kind (GstElement * enc);
const gchar *gst_am_encoder_kind_name (GstAmEncKind kind);
/* Walks upstream from `pad` (a sink pad) past payloaders, queues, tees, parsers, capsfilters
 * and other one-input elements to the first element whose class says Encoder. Returns a ref. */
GstElement *gst_am_encoder_find_upstream (GstPad * pad);
/* Attaches to enc (NULL: detach). The first target (and intra refresh, if on) is applied at
 * once (before any frame), later targets at key frames. Returns FALSE when intra refresh is on
 * and enc has none (not x264enc). */
gboolean gst_am_encoder_attach (GstAmEncoder * e, GstElement * enc, guint initial_bps);
/* Attaches to `explicit` if given, else to the encoder found upstream of sinkpad (or to
 * nothing: the owner then posts targets on the bus). Logs the choice on owner. */
void gst_am_encoder_attach_auto (GstAmEncoder * e, GstElement * explicit_enc, GstPad * sinkpad,
    guint initial_bps, GstObject * owner);
/* Rate matching (default off): at each key frame the setting becomes target x a gain that
 * makes the encoder's measured output match the target (amcc/encrate.h). */
void gst_am_encoder_set_match (GstAmEncoder * e, gboolean match);
/* Intra refresh (default off): on attach, x264enc gets intra-refresh=true, so it refreshes the
 * picture with a column of intra blocks that sweeps it once per key-int-max frames instead of
 * sending an IDR frame per key interval (no key-frame burst). x264enc flags the first frame of
 * each sweep as key, so targets still change once per period, and a force-key-unit request
 * starts a sweep (at once, or one more after the running one: x264 queues requests). Must be
 * set before the encoder sees its first frame; off leaves the encoder's own setting alone. */
void gst_am_encoder_set_intra_refresh (GstAmEncoder * e, gboolean on);
/* Asks for a new target; applied at the next key frame leaving the encoder. */
void gst_am_encoder_set_target (GstAmEncoder * e, guint bps);
/* Sets the encoder property with the right units; FALSE for kinds without one. */
gboolean gst_am_encoder_apply (GstElement * enc, GstAmEncKind kind, guint bps);

G_END_DECLS
#endif
