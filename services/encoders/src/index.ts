export { startEncoders } from './service';
export { EncoderStore } from './store';
export { Encoders, javaDouble } from './encoders';
