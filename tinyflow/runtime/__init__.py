"""The client layer: Session, the variable store and the executable cache."""
from tinyflow.runtime.config import ConfigProto
from tinyflow.runtime.session import InteractiveSession, Session, get_default_session
