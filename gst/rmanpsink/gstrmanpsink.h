/* gstrmanpsink.h - RMANP source: any byte stream, reliably to a multicast tree (papers/004). */
#ifndef GST_RMANP_SINK_H
#define GST_RMANP_SINK_H
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS
#define GST_TYPE_RMANP_SINK (gst_rmanp_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstRmanpSink, gst_rmanp_sink, GST, RMANP_SINK, GstBaseSink)
GST_ELEMENT_REGISTER_DECLARE (rmanpsink);

G_END_DECLS
#endif
