"""``tf.keras.callbacks`` (Keras 3): Callback, CallbackList, History, ProgbarLogger, EarlyStopping,
LearningRateScheduler, LambdaCallback, ModelCheckpoint (weights), TensorBoard (scalars)."""

from tpustrategy.keras.callbacks.callback import Callback
from tpustrategy.keras.callbacks.callback_list import CallbackList
from tpustrategy.keras.callbacks.early_stopping import EarlyStopping
from tpustrategy.keras.callbacks.history import History
from tpustrategy.keras.callbacks.lambda_callback import LambdaCallback
from tpustrategy.keras.callbacks.learning_rate_scheduler import LearningRateScheduler
from tpustrategy.keras.callbacks.model_checkpoint import ModelCheckpoint
from tpustrategy.keras.callbacks.progbar_logger import ProgbarLogger
from tpustrategy.keras.callbacks.tensorboard import TensorBoard

__all__ = ["Callback", "CallbackList", "EarlyStopping", "History", "LambdaCallback", "LearningRateScheduler",
           "ModelCheckpoint", "ProgbarLogger", "TensorBoard"]
