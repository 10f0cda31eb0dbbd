/* gstampacer.h - the sender's pacer: a private element (not registered in the plugin) with its
 * own queue and streaming thread that lets RTP packets leave spaced so the instantaneous rate is
 * at most factor x the target (lib/cc amcc_pacing_interval: RFC 4654 3.7's 8 s / X). Upstream
 * never blocks on pacing (it only waits if 2000 packets are queued); a packet never waits longer
 * than max-delay after it arrived. Waits are on the system clock (as the RTCP timers), one per
 * burst at most, and end on flush-start and when the pads deactivate
 * (PAUSED->READY). Thread safe. */
#ifndef GST_AM_PACER_H
#define GST_AM_PACER_H
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_AM_PACER (gst_am_pacer_get_type ())
G_DECLARE_FINAL_TYPE (GstAmPacer, gst_am_pacer, GST, AM_PACER, GstElement)

/* The burst (gst_am_pacer_configure) until configured: a packet whose slot is at most this far
 * ahead leaves at once (one wakeup sends all of them), so bytes sent in any window W stay within
 * factor x target x (W + burst) plus one packet. */
#define GST_AM_PACER_SLOT_MS 10
#define GST_AM_PACER_SLOT (GST_AM_PACER_SLOT_MS * GST_MSECOND)

GstElement *gst_am_pacer_new (const gchar * name);
/* The rate to pace at (bit/s, before the factor); 0 = no pacing. */
void gst_am_pacer_set_rate (GstAmPacer * p, guint bps);
/* enabled FALSE: packets leave as soon as they arrive. max_delay_ms: bound on a packet's wait.
 * burst_ms: a packet whose paced slot is at most this far ahead leaves without a wait. */
void gst_am_pacer_configure (GstAmPacer * p, gboolean enabled, gdouble factor,
    guint max_delay_ms, guint burst_ms);

typedef struct {
  guint queued;             /* packets waiting now */
  GstClockTime delay_max;   /* longest time a packet spent in the pacer since the last take */
  guint64 paced;            /* packets that waited for their slot (cumulative) */
  guint64 forced;           /* packets sent before their slot because max-delay was reached */
} GstAmPacerStats;
/* Reads the counters and restarts delay_max. */
void gst_am_pacer_take_stats (GstAmPacer * p, GstAmPacerStats * st);
/* The same as fields pacing-queued, pacing-delay-max-s, pacing-paced, pacing-forced. */
void gst_am_pacer_add_stats (GstAmPacer * p, GstStructure * stats);

G_END_DECLS
#endif
