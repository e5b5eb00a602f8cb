"""The client layer: Session, the variable store and the executable cache."""
from tinyflow.runtime.session import ConfigProto, InteractiveSession, Session, get_default_session
