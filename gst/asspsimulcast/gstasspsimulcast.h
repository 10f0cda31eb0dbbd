/* gstasspsimulcast.h - ASSP simulcast sender: one asmpsink per stream, their controllers tied. */
#ifndef GST_ASSP_SIMULCAST_H
#define GST_ASSP_SIMULCAST_H
#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_ASSP_SIMULCAST (gst_assp_simulcast_get_type ())
G_DECLARE_FINAL_TYPE (GstAsspSimulcast, gst_assp_simulcast, GST, ASSP_SIMULCAST, GstBin)
#define GST_TYPE_ASSP_SIMULCAST_PAD (gst_assp_simulcast_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstAsspSimulcastPad, gst_assp_simulcast_pad, GST, ASSP_SIMULCAST_PAD,
    GstGhostPad)
GST_ELEMENT_REGISTER_DECLARE (asspsimulcast);
G_END_DECLS
#endif
