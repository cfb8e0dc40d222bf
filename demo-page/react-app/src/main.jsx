// The React demo: a chat on agui-client-tools/react against the demo agent, in StrictMode.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AgentProvider } from 'agui-client-tools/react';
import { Chat } from './Chat.jsx';
import './styles.css';

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <AgentProvider options={{ url: '/agent' }}>
      <Chat />
    </AgentProvider>
  </StrictMode>,
);
