// The React demo: a chat on agui-client-tools/react against the demo agent, in StrictMode.
// `?thread=<id>` keeps that thread in IndexedDB: a reload (or another tab) brings it back. The
// "About" route unmounts the chat and its <AgentProvider>, as a route change in an app does.
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { indexedDbStore } from 'agui-client-tools';
import { AgentProvider } from 'agui-client-tools/react';
import { Chat } from './Chat.jsx';
import './styles.css';

const threadId = new URLSearchParams(location.search).get('thread');
const options = threadId ? { url: '/agent', persist: indexedDbStore(), threadId } : { url: '/agent' };

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

function App() {
  const about = useHash() === '#about';
  return (
    <>
      <nav>
        <a id="nav-chat" href="#">
          Chat
        </a>{' '}
        <a id="nav-about" href="#about">
          About
        </a>
      </nav>
      {about ? (
        <p id="about">A chat on agui-client-tools/react.</p>
      ) : (
        <AgentProvider options={options}>
          <Chat />
        </AgentProvider>
      )}
    </>
  );
}

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
