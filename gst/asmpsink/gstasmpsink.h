/* gstasmpsink.h - adaptive multicast RTP sender (ASMP / TFMCC) around rtpbin. */
#ifndef GST_ASMP_SINK_H
#define GST_ASMP_SINK_H
#include <gst/gst.h>
#include <amcc/controller.h>
#include "../common/gstamsessionbin.h"

G_BEGIN_DECLS
#define GST_TYPE_ASMP_SINK (gst_asmp_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstAsmpSink, gst_asmp_sink, GST, ASMP_SINK, GstAmSessionBin)
GST_ELEMENT_REGISTER_DECLARE (asmpsink);

/* For a bin of several streams (asspsimulcast), in NULL state: the sink takes `lock` for all its
 * state (the streams' controllers see each other) and runs `proto` whatever its `protocol`. */
void gst_asmp_sink_join_group (GstAsmpSink * self, GMutex * lock, const amcc_protocol * proto);
/* Its controller between READY and NULL (NULL otherwise); call with the group's lock held. */
amcc_sender *gst_asmp_sink_controller (GstAsmpSink * self);
G_END_DECLS
#endif
