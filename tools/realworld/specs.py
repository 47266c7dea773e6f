import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from paths import HERE, PKGS, OUT_DIR, TRANSPILED, MXNET_PYTHON  # noqa: E402,F401
CV2 = f"{PKGS}/gluoncv2"
CV2S = ["gluoncv2", "gluoncv2.models"]
CV = f"{PKGS}/gluoncv"
CVS = ["gluoncv", "gluoncv.model_zoo"]
NLP = f"{PKGS}/gluonnlp/gluonnlp-0.10.0/src"
NLPS = ["gluonnlp", "gluonnlp.model"]
TS = f"{PKGS}/gluonts"
TSS = ["gluonts", "gluonts.model", "gluonts.mx", "gluonts.mx.block", "gluonts.core", "gluonts.model.transformer", "gluonts.model.tft", "gluonts.model.lstnet"]

SPECS = []
def cv2(ctor, mod, size=224, **kw):
    SPECS.append(dict(name=f"imgclsmob.{ctor}", root=CV2, troot=TRANSPILED, stubs=CV2S,
                      module=f"gluoncv2.models.{mod}", ctor=ctor, kwargs=kw, inputs=[(1, 3, size, size)]))
def cv(ctor, mod, size=64, inputs=None, args_=(), **kw):
    SPECS.append(dict(name=f"gluoncv.{ctor}", args=args_, root=CV, troot=TRANSPILED, stubs=CVS,
                      module=f"gluoncv.model_zoo.{mod}", ctor=ctor, kwargs=kw, inputs=inputs or [(1, 3, size, size)]))

cv2("resnext14_16x4d", "resnext")
cv2("seresnet10", "seresnet")
cv2("mobilenetv3_small_w1", "mobilenetv3")
cv2("shufflenetv2_wd2", "shufflenetv2")
cv2("shufflenet_g3_wd4", "shufflenet")
cv2("squeezenet_v1_1", "squeezenet")
cv2("sqnxt23_w1", "squeezenext")
cv2("densenet121", "densenet")
cv2("inceptionv3", "inceptionv3", size=299)
cv2("efficientnet_b0", "efficientnet")
cv2("efficientnet_b0b", "efficientnet")
cv2("ghostnet", "ghostnet")
cv2("hrnet_w18_small_v1", "hrnet")
cv2("mixnet_s", "mixnet")
cv2("regnety002", "regnet")
cv2("res2net50_w14_s8", "res2net")
cv2("sknet50", "sknet")
cv2("dla34", "dla")
cv2("resnestabc14", "resnesta")
cv2("dpn68", "dpn")
cv2("octresnet10_ad2", "octresnet")
cv2("nasnet_4a1056", "nasnet")

cv("resnext50_32x4d", "resnext")
cv("se_resnext50_32x4d", "resnext")
cv("mobilenet_v3_small", "mobilenetv3", size=224)
cv("se_resnet18_v2", "se_resnet")
cv("squeezenet1_1", "squeezenet", size=224)
cv("densenet121", "densenet", size=224)
cv("inception_v3", "inception", size=299)
cv("get_hrnet", "hrnet", size=128, args_=("w18_small_v1",), purpose="seg", stage_interp_type="bilinear", num_classes=5)
cv("resnest14", "resnest", size=224)
cv("ShuffleNetV2", "shufflenet", size=224)
cv("get_xcetption", "xception", size=96)
cv("residualattentionnet56", "residual_attentionnet", size=224)
cv("nasnet_4_1056", "nasnet", size=224)

cv("darknet53", "yolo.darknet", size=64)
cv("googlenet", "googlenet", size=224)

NLPS2 = ["gluonnlp", "gluonnlp.model", "gluonnlp.data", "gluonnlp.model.train"]
NLPPRE = {"gluonnlp.data.utils": "def _load_pretrained_vocab(*a, **k):\n    raise NotImplementedError\n",
          "gluonnlp.utils": f"__path__ = ['{PKGS}/gluonnlp/gluonnlp-0.10.0/src/gluonnlp/utils']\nclass Parallelizable: pass\n"}
def nlp(name, mod, build, inputs, stubs=NLPS2, **kw):
    SPECS.append(dict(name=f"gluonnlp.{name}", root=NLP, troot=TRANSPILED, stubs=stubs, prelude=NLPPRE,
                      module=f"gluonnlp.{mod}", ctor=None, build=build, inputs=inputs, **kw))

nlp("MultiHeadAttentionCell", "model.attention_cell",
    "m.MultiHeadAttentionCell(m.DotProductAttentionCell(scaled=True), query_units=16, key_units=16, value_units=16, num_heads=4)",
    [(2, 5, 12), (2, 7, 12), (2, 7, 12), {"int": 2, "shape": (2, 5, 7)}])
nlp("MLPAttentionCell", "model.attention_cell", "m.MLPAttentionCell(units=16, normalized=True)",
    [(2, 5, 12), (2, 7, 12), (2, 7, 12), {"int": 2, "shape": (2, 5, 7)}])
nlp("TransformerEncoder", "model.transformer",
    "m.TransformerEncoder(num_layers=2, units=16, hidden_size=32, num_heads=4, max_length=20, scaled=True)",
    [(2, 6, 16), None, {"value": [6, 3]}])
nlp("BERTModel", "model.bert",
    "m.BERTModel(m.BERTEncoder(num_layers=2, units=16, hidden_size=32, num_heads=4, max_length=20), vocab_size=30, token_type_vocab_size=2, units=16, embed_size=16, use_pooler=True, use_decoder=True, use_classifier=True)",
    [{"int": 30, "shape": (2, 8)}, {"int": 2, "shape": (2, 8)}, {"value": [8, 5]}, {"int": 8, "shape": (2, 3)}])
nlp("BiLMEncoder", "model.bilm_encoder",
    "m.BiLMEncoder(mode='lstmpc', num_layers=2, input_size=8, hidden_size=8, proj_size=4, cell_clip=3, proj_clip=3)",
    [(5, 2, 8), [[[(2, 4), (2, 8)], [(2, 4), (2, 8)]], [[(2, 4), (2, 8)], [(2, 4), (2, 8)]]]], fresh_inputs=True)
nlp("ConvolutionalEncoder", "model.convolutional_encoder",
    "m.ConvolutionalEncoder(embed_size=8, num_filters=(4, 6), ngram_filter_sizes=(1, 2), conv_layer_activation='tanh', num_highway=2, output_size=10)",
    [(7, 2, 8), {"int": 2, "shape": (7, 2)}])
nlp("AWDRNN", "model.train.language_model",
    "m.AWDRNN(mode='lstm', vocab_size=30, embed_size=16, hidden_size=20, num_layers=2, tie_weights=True, dropout=0, weight_drop=0, drop_h=0, drop_i=0, drop_e=0)",
    [{"int": 30, "shape": (6, 2)}])
nlp("StandardRNN", "model.train.language_model",
    "m.StandardRNN(mode='gru', vocab_size=30, embed_size=16, hidden_size=16, num_layers=2, dropout=0, tie_weights=True)",
    [{"int": 30, "shape": (6, 2)}])

TSPRE = {
    "gluonts.core.component": """import functools, inspect
def validated(*a, **k):
    def deco(init):
        params = [p for p in list(inspect.signature(init).parameters.values())[1:]
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        @functools.wraps(init)
        def wrapper(self, *args, **kwargs):
            named = {p.name: v for p, v in zip(params, args)}
            return init(self, **named, **kwargs)
        return wrapper
    return deco
DType = type
""",
    "gluonts.mx": "import typing, mxnet as mx\nTensor = typing.Union[mx.nd.NDArray, mx.sym.Symbol]\n",
    "gluonts.time_feature": "def get_seasonality(freq): return 1\n",
}
TSS = ["gluonts", "gluonts.model", "gluonts.mx.block", "gluonts.model.transformer", "gluonts.model.tft", "gluonts.model.lstnet", "gluonts.model.n_beats", "gluonts.model.seq2seq"]
def ts(name, mod, build, inputs, **kw):
    SPECS.append(dict(name=f"gluonts.{name}", root=TS, troot=TRANSPILED, stubs=TSS, prelude=TSPRE,
                      module=f"gluonts.{mod}", ctor=None, build=build, inputs=inputs, **kw))

ts("TransformerEncoder", "model.transformer.trans_encoder",
   "m.TransformerEncoder(encoder_length=6, config=dict(model_dim=16, pre_seq='dn', post_seq='drn', dropout_rate=0.0, num_heads=4, inner_ff_dim_scale=2, act_type='softrelu'))",
   [(2, 6, 5)])
ts("LSTNetPredict", "model.lstnet._network",
   "m.LSTNetPredict(num_series=3, channels=6, kernel_size=2, rnn_cell_type='gru', rnn_num_layers=1, rnn_num_cells=8, skip_rnn_cell_type='lstm', skip_rnn_num_layers=1, skip_rnn_num_cells=4, skip_size=2, ar_window=3, context_length=12, lead_time=0, prediction_length=4, dropout_rate=0.0, output_activation='sigmoid', scaling=True, dtype='float32')",
   [(2, 3, 12), {"int": 2, "shape": (2, 3, 12)}])
ts("VariableSelectionNetwork", "model.tft._layers", "m.VariableSelectionNetwork(d_hidden=8, n_vars=3, add_static=True)",
   [[(2, 5, 8), (2, 5, 8), (2, 5, 8)], (2, 1, 8)])
ts("TemporalFusionEncoder", "model.tft._layers", "m.TemporalFusionEncoder(context_length=6, prediction_length=3, d_input=5, d_hidden=8)",
   [(2, 6, 5), (2, 3, 5), [(2, 8), (2, 8)]])
ts("TemporalFusionDecoder", "model.tft._layers", "m.TemporalFusionDecoder(context_length=6, prediction_length=3, d_hidden=8, d_var=4, n_head=2)",
   [(2, 9, 8), (2, 1, 4), {"int": 2, "shape": (2, 6)}])
ts("NBEATSPredictionNetwork", "model.n_beats._network",
   "m.NBEATSPredictionNetwork(prediction_length=4, context_length=8, num_stacks=2, widths=[16, 16], num_blocks=[1, 1], num_block_layers=[2, 2], expansion_coefficient_lengths=[4, 2], sharing=[False, True], stack_types=['G', 'S'])",
   [(2, 8), {"int": 2, "shape": (2, 8)}, None, None], fresh_hybrid=True)
ts("HierarchicalCausalConv1DEncoder", "mx.block.encoder",
   "m.HierarchicalCausalConv1DEncoder(dilation_seq=[1, 2], kernel_size_seq=[2, 2], channels_seq=[4, 4], use_residual=True, use_static_feat=True, use_dynamic_feat=True)",
   [(2, 10, 1), (2, 3), (2, 10, 2)])

import json as _json
import os as _os
if _os.path.exists(f"{HERE}/sweep.json"):
    for _e in _json.load(open(f"{HERE}/sweep.json")):
        SPECS.append(dict(name=f"sweep.{_e['mod']}.{_e['ctor']}", root=CV2, troot=TRANSPILED, stubs=CV2S,
                          module=f"gluoncv2.models.{_e['mod']}", ctor=_e["ctor"], kwargs={}, inputs="auto"))

VOC = ['aeroplane', 'bicycle', 'bird', 'boat', 'bottle', 'bus', 'car', 'cat', 'chair', 'cow', 'diningtable',
       'dog', 'horse', 'motorbike', 'person', 'pottedplant', 'sheep', 'sofa', 'train', 'tvmonitor']
CVPRE = {"gluoncv.data": f"class VOCDetection:\n    CLASSES = {VOC!r}\nclass COCODetection:\n    CLASSES = {VOC!r}\n",
         "tqdm": "def tqdm(*a, **k):\n    raise NotImplementedError\n", "portalocker": "class Lock:\n    pass\n"}
CVS2 = ["gluoncv"]
def cvd(name, mod, build, inputs, **kw):
    SPECS.append(dict(name=f"gluoncv.{name}", root=CV, troot=TRANSPILED, stubs=CVS2, prelude=CVPRE,
                      module=f"gluoncv.model_zoo.{mod}", ctor=None, build=build, inputs=inputs, **kw))
cvd("yolo3_mobilenet0_25_custom", "yolo.yolo3", "m.yolo3_mobilenet0_25_custom(classes=['a', 'b', 'c'], pretrained_base=False)", [(1, 3, 128, 128)])
cvd("yolo3_darknet53_voc", "yolo.yolo3", "m.yolo3_darknet53_voc(pretrained_base=False)", [(1, 3, 96, 96)])
cvd("ssd_512_mobilenet1_0_voc", "ssd.presets", "m.ssd_512_mobilenet1_0_voc(pretrained_base=False)", [(1, 3, 256, 256)])
cvd("center_net_resnet18_v1b_voc", "center_net.center_net", "m.center_net_resnet18_v1b_voc(pretrained_base=False)", [(1, 3, 128, 128)])
cvd("center_net_resnet18_v1b_dcnv2_voc", "center_net.center_net", "m.center_net_resnet18_v1b_dcnv2_voc(pretrained_base=False)", [(1, 3, 128, 128)])
cvd("faster_rcnn_resnet50_v1b_voc", "rcnn.faster_rcnn.predefined_models", "m.faster_rcnn_resnet50_v1b_voc(pretrained_base=False)", [(1, 3, 128, 160)])
cvd("FCN", "fcn", "m.FCN(5, backbone='resnet50', pretrained_base=False, base_size=128, crop_size=128)", [(1, 3, 128, 128)])
cvd("DeepLabV3", "deeplabv3", "m.DeepLabV3(5, backbone='resnet50', pretrained_base=False, base_size=128, crop_size=128)", [(1, 3, 128, 128)])
cvd("PSPNet", "pspnet", "m.PSPNet(5, backbone='resnet50', pretrained_base=False, base_size=128, crop_size=128)", [(1, 3, 128, 128)])

TSPRE2 = dict(TSPRE)
TSPRE2["gluonts.mx"] = f"import typing, mxnet as mx\n__path__ = ['{PKGS}/gluonts/gluonts/mx']\nTensor = typing.Union[mx.nd.NDArray, mx.sym.Symbol]\n"
ts("DeepARTrainingNetwork", "model.deepar._network",
   "m.DeepARTrainingNetwork(num_layers=2, num_cells=8, cell_type='lstm', history_length=10, context_length=6, prediction_length=3, distr_output=__import__('gluonts.mx.distribution', fromlist=['x']).StudentTOutput(), dropout_rate=0.0, cardinality=[3], embedding_dimension=[2], lags_seq=[1, 2, 4], scaling=True)",
   [{"int": 3, "shape": (2, 1)}, (2, 1), (2, 10, 2), (2, 10), {"const": 1.0, "shape": (2, 10)}, {"const": 0.0, "shape": (2, 10)}, (2, 3, 2), (2, 3), {"const": 1.0, "shape": (2, 3)}])
TSPRE2["gluonts.core.serde"] = "def dump_json(*a, **k):\n    raise NotImplementedError\nload_json = dump_json\n"
SPECS[-1]["prelude"] = TSPRE2
SPECS[-1]["stubs"] = TSS + ["gluonts.model.deepar"]

ts("DeepARTrainingNetwork.gru_gaussian", "model.deepar._network",
   "m.DeepARTrainingNetwork(num_layers=1, num_cells=6, cell_type='gru', history_length=9, context_length=5, prediction_length=2, distr_output=__import__('gluonts.mx.distribution', fromlist=['x']).GaussianOutput(), dropout_rate=0.0, cardinality=[2], embedding_dimension=[3], lags_seq=[1, 4], scaling=False)",
   [{"int": 2, "shape": (2, 1)}, (2, 1), (2, 9, 1), (2, 9), {"const": 1.0, "shape": (2, 9)}, {"const": 0.0, "shape": (2, 9)}, (2, 2, 1), (2, 2), {"const": 1.0, "shape": (2, 2)}])
SPECS[-1]["prelude"] = TSPRE2
SPECS[-1]["stubs"] = TSS + ["gluonts.model.deepar"]

def cv2x(ctor, mod, inputs):
    SPECS.append(dict(name=f"imgclsmob.{ctor}", root=CV2, troot=TRANSPILED, stubs=CV2S,
                      module=f"gluoncv2.models.{mod}", ctor=ctor, kwargs={}, inputs=inputs))
cv2x("voca8flame", "voca", [(2, 1, 16, 29), {"value": [3, 1]}])
cv2x("nvpattexp116bazel76", "nvpattexp", [(2, 8, 16, 29), {"value": [3, 1]}])
