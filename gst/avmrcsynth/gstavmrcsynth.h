/* gstavmrcsynth.h - the paper's synthetic layered workload (papers/003 4.2) as RTP for
 * avmrclayers: C constant-rate channels in bursts every scheduling period. */
#ifndef GST_AVMRC_SYNTH_H
#define GST_AVMRC_SYNTH_H
#include <gst/gst.h>
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS
#define GST_TYPE_AVMRC_SYNTH (gst_avmrc_synth_get_type ())
G_DECLARE_FINAL_TYPE (GstAvmrcSynth, gst_avmrc_synth, GST, AVMRC_SYNTH, GstPushSrc)
GST_ELEMENT_REGISTER_DECLARE (avmrcsynth);

G_END_DECLS
#endif
