"""The client layer: Session, the variable store and the executable cache."""
from .session import ConfigProto, InteractiveSession, Session, get_default_session
